import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp, TestUser } from '../../helpers/app.js';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let nextAddress = 1;
/** A fresh client address per device: the code route allows 3 a minute per address. */
export function freshIp(): string {
  nextAddress += 1;
  return `10.20.${Math.floor(nextAddress / 250)}.${nextAddress % 250}`;
}

export interface IssuedCodes {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
  ip: string;
}

/** POST /v1/public/device/code form-encoded, as an OAuth client sends it. */
export async function requestCodes(
  t: TestApp,
  fields: Record<string, string> = { client_id: 'launcher' },
  ip = freshIp(),
): Promise<IssuedCodes> {
  const response = await t.request({
    method: 'POST',
    url: '/v1/public/device/code',
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Launcher/1.0' },
    payload: new URLSearchParams(fields).toString(),
  });
  expect(response.statusCode, response.body).toBe(200);
  return { ...response.json(), ip };
}

/** One poll of the token endpoint, form-encoded. */
export function poll(t: TestApp, fields: Record<string, string>, ip = '10.99.0.1'): Promise<LightMyRequestResponse> {
  return t.request({
    method: 'POST',
    url: '/v1/public/device/token',
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}

export function pollDeviceCode(
  t: TestApp,
  codes: IssuedCodes,
  overrides: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return poll(
    t,
    { grant_type: DEVICE_GRANT, device_code: codes.device_code, client_id: 'launcher', ...overrides },
    codes.ip,
  );
}

export function decide(
  t: TestApp,
  user: TestUser,
  userCode: string,
  action: 'inspect' | 'approve' | 'deny',
): Promise<LightMyRequestResponse> {
  return t.request({
    method: 'POST',
    url: '/v1/me/device/approve',
    token: user.token,
    payload: { user_code: userCode, action },
  });
}

export function oauthAnswer(response: LightMyRequestResponse): { status: number; body: unknown } {
  return { status: response.statusCode, body: response.json() };
}
