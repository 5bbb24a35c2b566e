import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { JobContext, JobSummary } from '../../kernel/areas/jobs.js';
import { deleteRevokedDevices, deleteUnredeemedCodes } from './queries.js';

const DAY_MS = 86_400_000;
/** A launcher polling a day past expiry still hears `expired_token` rather than `invalid_grant`. */
export const EXPIRED_CODE_KEEP_MS = DAY_MS;
/** A revoked device stays in the player's history a month; its sessions stay refused through `revoked_sessions`. */
export const REVOKED_DEVICE_KEEP_MS = 30 * DAY_MS;

/**
 * Device codes that never became a device (pending or denied past expiry, or approved but never
 * redeemed before expiry) a day after expiry, and revoked devices after a month. Approved devices
 * in use are kept as long as they are: their refresh token lives on the row.
 */
export async function purgeDeviceAuthorizationsJob(trx: Kysely<Tables>, { now }: JobContext): Promise<JobSummary> {
  const expiredBefore = new Date(now.getTime() - EXPIRED_CODE_KEEP_MS);
  const expired = await deleteUnredeemedCodes(trx, expiredBefore);
  const revoked = await deleteRevokedDevices(trx, new Date(now.getTime() - REVOKED_DEVICE_KEEP_MS));
  return { expired_codes: expired, revoked_devices: revoked };
}
