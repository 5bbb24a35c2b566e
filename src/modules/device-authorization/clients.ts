/**
 * The clients allowed to start a device authorization. A fixed list, not open registration: a
 * device code names who is asking on the approval screen, so an arbitrary id would let anyone
 * pose as "Official launcher". All are public clients (no secret): they run on players' machines.
 */
export const DEVICE_CLIENTS = {
  launcher: { name: 'Game launcher' },
} as const satisfies Record<string, { name: string }>;

export type DeviceClientId = keyof typeof DEVICE_CLIENTS;

export function isKnownClient(clientId: string): clientId is DeviceClientId {
  return Object.hasOwn(DEVICE_CLIENTS, clientId);
}
