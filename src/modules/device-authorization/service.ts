import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { mintToken } from '../../kernel/auth/token-mint.js';
import type { Writes } from '../../kernel/write.js';
import { isKnownClient } from './clients.js';
import { displayUserCode, hashSecret, newOpaqueSecret, newUserCode } from './codes.js';
import { OAuthError } from './oauth-errors.js';
import {
  holderStanding,
  insertDeviceAuthorization,
  lockByColumn,
  updateDeviceAuthorization,
  type DeviceAuthorizationRow,
} from './queries.js';
import { DEVICE_CODE_GRANT, type DeviceCodeInput, type TokenInput } from './schemas.js';

export const DEVICE_CODE_TTL_SECONDS = 600;
export const POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 section 3.5: each too-fast poll adds 5 s for this and every later request. */
const SLOW_DOWN_STEP_SECONDS = 5;
export const ACCESS_TOKEN_TTL_SECONDS = 3_600;
const MAX_USER_AGENT = 512;

export interface DeviceFlowOptions {
  /** The HS256 secret tokens are minted with; undefined (JWKS only) turns the grant off. */
  jwtSecret: string | undefined;
  /** Where the player enters the code. */
  verificationUri: string;
  now?: () => Date;
}

export interface DeviceClientContext {
  ip: string | null;
  userAgent: string | null;
}

export interface DeviceCodeResult {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export interface TokenResult {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope?: string;
}

/**
 * A transaction's verdict: refusals that changed a row (the poll time, the interval) must commit before they are
 * thrown.
 */
type Outcome = { tokens: TokenResult } | { refusal: OAuthError };

/**
 * The launcher's side of RFC 8628: start a device authorization, poll it until the player
 * decides, collect tokens once, refresh them. Tokens are minted here because the service holds
 * the identity provider's HS256 secret (embedded default, or JWT_SECRET); with a JWKS only there is
 * nothing to sign with and the grant answers `unsupported_grant_type`.
 */
export class DeviceFlowService {
  private readonly now: () => Date;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly options: DeviceFlowOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async requestCode(input: DeviceCodeInput, client: DeviceClientContext): Promise<DeviceCodeResult> {
    this.secret();
    if (!isKnownClient(input.client_id)) throw new OAuthError('invalid_client', 'unknown client_id');
    const deviceCode = newOpaqueSecret();
    const created = this.now();
    // A user code already in use (about one in 10^10 per row) just means drawing another.
    for (let attempt = 0; attempt < 5; attempt++) {
      const userCode = newUserCode();
      const inserted = await insertDeviceAuthorization(this.db, {
        client_id: input.client_id,
        scope: input.scope ?? null,
        device_code_hash: hashSecret(deviceCode),
        user_code: userCode,
        requester_ip: client.ip,
        requester_user_agent: client.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
        created_at: created,
        expires_at: new Date(created.getTime() + DEVICE_CODE_TTL_SECONDS * 1_000),
        interval_seconds: POLL_INTERVAL_SECONDS,
      });
      if (!inserted) continue;
      const shown = displayUserCode(userCode);
      return {
        device_code: deviceCode,
        user_code: shown,
        verification_uri: this.options.verificationUri,
        verification_uri_complete: `${this.options.verificationUri}?user_code=${shown}`,
        expires_in: DEVICE_CODE_TTL_SECONDS,
        interval: POLL_INTERVAL_SECONDS,
      };
    }
    throw new Error('could not draw a free user code');
  }

  async token(input: TokenInput, client: DeviceClientContext): Promise<TokenResult> {
    const secret = this.secret();
    if (input.grant_type === DEVICE_CODE_GRANT) {
      if (input.device_code === undefined) throw new OAuthError('invalid_request', 'device_code is required');
      return this.settle(
        this.write(({ trx }) => this.exchangeDeviceCode(trx, secret, input.client_id, input.device_code!, client)),
      );
    }
    if (input.grant_type === 'refresh_token') {
      if (input.refresh_token === undefined) throw new OAuthError('invalid_request', 'refresh_token is required');
      return this.settle(
        this.write(({ trx }) => this.refresh(trx, secret, input.client_id, input.refresh_token!, client)),
      );
    }
    throw new OAuthError('unsupported_grant_type');
  }

  private async settle(outcome: Promise<Outcome>): Promise<TokenResult> {
    const settled = await outcome;
    if ('refusal' in settled) throw settled.refusal;
    return settled.tokens;
  }

  private async exchangeDeviceCode(
    trx: Kysely<Tables>,
    secret: string,
    clientId: string,
    deviceCode: string,
    client: DeviceClientContext,
  ): Promise<Outcome> {
    const row = await lockByColumn(trx, 'device_code_hash', hashSecret(deviceCode));
    // Another client's code is as good as unknown: it says nothing about the code.
    if (row === undefined || row.client_id !== clientId) return refuse('invalid_grant', 'unknown device_code');
    if (row.redeemed_at !== null || row.revoked_at !== null)
      return refuse('invalid_grant', 'the device_code was already used');
    const now = this.now();
    if (row.expires_at <= now) return refuse('expired_token');
    if (row.last_polled_at !== null && now.getTime() - row.last_polled_at.getTime() < row.interval_seconds * 1_000) {
      const interval = row.interval_seconds + SLOW_DOWN_STEP_SECONDS;
      await updateDeviceAuthorization(trx, row.id, { interval_seconds: interval, last_polled_at: now });
      return { refusal: new OAuthError('slow_down', `poll at most every ${interval} s`, interval) };
    }
    await updateDeviceAuthorization(trx, row.id, { last_polled_at: now });
    if (row.status === 'denied') return refuse('access_denied');
    if (row.status === 'pending') return refuse('authorization_pending');
    // Approved: the player may have been banned or signed out everywhere since.
    const standing = await holderStanding(trx, row.user_id!, null);
    if (
      standing === undefined ||
      !standing.active ||
      (standing.tokens_valid_after !== null && standing.tokens_valid_after >= row.decided_at!)
    ) {
      return refuse('access_denied', 'the account can no longer sign in');
    }
    const sessionId = randomUUID();
    return {
      tokens: await this.issue(trx, secret, row, { sessionId, email: standing.email, now, client, redeemed: true }),
    };
  }

  private async refresh(
    trx: Kysely<Tables>,
    secret: string,
    clientId: string,
    refreshToken: string,
    client: DeviceClientContext,
  ): Promise<Outcome> {
    const row = await lockByColumn(trx, 'refresh_token_hash', hashSecret(refreshToken));
    if (row === undefined || row.client_id !== clientId || row.revoked_at !== null || row.session_id === null)
      return refuse('invalid_grant', 'unknown refresh_token');
    const standing = await holderStanding(trx, row.user_id!, row.session_id);
    const signedOutSince =
      standing?.tokens_valid_after != null && standing.tokens_valid_after >= row.refresh_issued_at!;
    if (standing === undefined || !standing.active || standing.session_revoked || signedOutSince)
      return refuse('invalid_grant', 'the session has ended');
    return {
      tokens: await this.issue(trx, secret, row, {
        sessionId: row.session_id,
        email: standing.email,
        now: this.now(),
        client,
        redeemed: false,
      }),
    };
  }

  /** A new access token for the device's session and a new refresh token (the old one dies: rotation). */
  private async issue(
    trx: Kysely<Tables>,
    secret: string,
    row: DeviceAuthorizationRow,
    issue: { sessionId: string; email: string | null; now: Date; client: DeviceClientContext; redeemed: boolean },
  ): Promise<TokenResult> {
    const accessToken = await mintToken(secret, {
      subject: row.user_id!,
      ...(issue.email !== null ? { email: issue.email } : {}),
      ttlSeconds: ACCESS_TOKEN_TTL_SECONDS,
      claims: {
        session_id: issue.sessionId,
        client_id: row.client_id,
        amr: [{ method: 'device_code', timestamp: Math.floor(row.decided_at!.getTime() / 1_000) }],
      },
    });
    const refreshToken = newOpaqueSecret();
    await updateDeviceAuthorization(trx, row.id, {
      ...(issue.redeemed ? { redeemed_at: issue.now, session_id: issue.sessionId } : {}),
      refresh_token_hash: hashSecret(refreshToken),
      refresh_issued_at: issue.now,
      last_used_at: issue.now,
      last_used_ip: issue.client.ip,
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      refresh_token: refreshToken,
      ...(row.scope !== null ? { scope: row.scope } : {}),
    };
  }

  private secret(): string {
    if (this.options.jwtSecret === undefined) {
      throw new OAuthError(
        'unsupported_grant_type',
        'device authorization needs JWT_SECRET: this deployment verifies identity-provider tokens by JWKS only ' +
          'and cannot mint them',
      );
    }
    return this.options.jwtSecret;
  }
}

function refuse(code: ConstructorParameters<typeof OAuthError>[0], description?: string): Outcome {
  return { refusal: new OAuthError(code, description) };
}
