import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { invalidState, notFound } from '../../kernel/errors.js';
import type { Writes } from '../../kernel/write.js';
import { DEVICE_CLIENTS, isKnownClient } from './clients.js';
import { normalizeUserCode } from './codes.js';
import {
  listApprovedDevices,
  lockApprovedDevice,
  lockByColumn,
  updateDeviceAuthorization,
  type ApprovedDeviceRow,
  type DeviceAuthorizationRow,
} from './queries.js';
import { revokeSession } from '../login-sessions/index.js';
import type { ApprovedDeviceView, ApproveInput, DeviceRequestView } from './schemas.js';

const DECISIONS = { approve: 'approved', deny: 'denied' } as const;

function clientName(clientId: string): string {
  return isKnownClient(clientId) ? DEVICE_CLIENTS[clientId].name : clientId;
}

function requestView(row: DeviceAuthorizationRow): DeviceRequestView {
  return {
    client_id: row.client_id,
    client_name: clientName(row.client_id),
    scope: row.scope,
    created_at: row.created_at,
    expires_at: row.expires_at,
    ip: row.requester_ip,
    user_agent: row.requester_user_agent,
    status: row.status,
  };
}

function deviceView(row: ApprovedDeviceRow): ApprovedDeviceView {
  return {
    id: row.id,
    client_id: row.client_id,
    client_name: clientName(row.client_id),
    scope: row.scope,
    approved_at: row.decided_at!,
    signed_in: row.redeemed_at !== null,
    last_used_at: row.last_used_at,
    ip: row.requester_ip,
    last_used_ip: row.last_used_ip,
  };
}

/** The signed-in player's side: look at a code, approve or deny it, list and revoke approved devices. */
export class DeviceApprovalService {
  private readonly now: () => Date;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    now?: () => Date,
  ) {
    this.now = now ?? (() => new Date());
  }

  /**
   * Every wrong, malformed or expired code is the same 404: nothing tells a guesser how close
   * they came. The guesses are counted by the route's per-user limit before this runs.
   */
  async decide(actor: Actor, input: ApproveInput): Promise<DeviceRequestView> {
    const userCode = normalizeUserCode(input.user_code);
    if (userCode === undefined) throw notFound();
    return this.write(actor, async (w) => {
      const row = await lockByColumn(w.trx, 'user_code', userCode);
      if (row === undefined || row.expires_at <= this.now()) throw notFound();
      if (input.action === 'inspect') return requestView(row);
      const status = DECISIONS[input.action];
      if (row.status !== 'pending') {
        // The same player repeating their own decision (a double click) is answered as done.
        if (row.status === status && row.user_id === actor.userId) return requestView(row);
        throw invalidState({
          reason: 'the code has already been decided',
          status: row.user_id === actor.userId ? row.status : undefined,
        });
      }
      const decidedAt = this.now();
      await updateDeviceAuthorization(w.trx, row.id, { status, user_id: actor.userId, decided_at: decidedAt });
      await w.audit({
        action: `device_authorization.${input.action}`,
        targetType: 'device_authorization',
        targetId: row.id,
        extra: { client_id: row.client_id, requester_ip: row.requester_ip },
      });
      return requestView({ ...row, status, user_id: actor.userId, decided_at: decidedAt });
    });
  }

  async list(userId: string): Promise<ApprovedDeviceView[]> {
    return (await listApprovedDevices(this.db, userId, this.now())).map(deviceView);
  }

  /**
   * Signs the device out: its refresh token dies and its session id is listed in
   * `revoked_sessions`, so the principal refuses its access tokens from the next request.
   */
  async revoke(actor: Actor, id: string): Promise<void> {
    await this.write(actor, async (w) => {
      const row = await lockApprovedDevice(w.trx, actor.userId, id);
      if (row === undefined) throw notFound();
      await updateDeviceAuthorization(w.trx, row.id, { revoked_at: this.now(), refresh_token_hash: null });
      if (row.session_id !== null) await revokeSession(w.trx, actor.userId, row.session_id, actor.userId);
      await w.audit({
        action: 'device_authorization.revoke',
        targetType: 'device_authorization',
        targetId: row.id,
        extra: { client_id: row.client_id, session_id: row.session_id },
      });
    });
  }
}
