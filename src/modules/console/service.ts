import { decodeJwt } from 'jose';
import type { Config } from '../../config.js';
import { DEV_OWNER_EMAIL, DEV_OWNER_TOKEN_TTL_SECONDS, type DevSignInCodes } from './dev-sign-in.js';
import { mintToken } from '../../kernel/auth/token-mint.js';
import { AppError, notFound } from '../../kernel/errors.js';
import type { ConsoleConfig, ConsoleSession } from './schemas.js';

/** 401 for a sign-in code that is unknown, used or expired: which of them is not said. */
export const INVALID_SIGN_IN_CODE = 'invalid_sign_in_code';

/** What the staff console learns at start, and the development mode's sign-in by printed link. */
export class ConsoleService {
  constructor(
    private readonly config: Pick<
      Config,
      'consoleGotrueUrl' | 'consoleGotrueAnonKey' | 'consoleCreditConfirmAbove' | 'jwtSecret'
    >,
    /** Present only in the embedded development mode (platform.devSignIn). */
    private readonly codes: DevSignInCodes | undefined,
  ) {}

  /**
   * How staff sign in: the printed link in the development mode (its made-up secret could not
   * verify GoTrue's tokens anyway), else GoTrue when configured, else a pasted token.
   */
  consoleConfig(): ConsoleConfig {
    return { signIn: this.#signIn(), credits: { confirmAbove: this.config.consoleCreditConfirmAbove } };
  }

  #signIn(): ConsoleConfig['signIn'] {
    if (this.codes !== undefined) return { method: 'dev_link' };
    const { consoleGotrueUrl: url, consoleGotrueAnonKey: anonKey } = this.config;
    if (url !== undefined && anonKey !== undefined) return { method: 'gotrue', url, anonKey };
    return { method: 'token' };
  }

  /** A printed code, once, for a token of the development owner; nothing of the code is kept or told. */
  async signIn(code: string): Promise<ConsoleSession> {
    const secret = this.config.jwtSecret;
    if (this.codes === undefined || secret === undefined) throw notFound();
    if (!this.codes.redeem(code)) throw new AppError(401, INVALID_SIGN_IN_CODE);
    const accessToken = await mintToken(secret, {
      subject: this.codes.ownerSubject,
      email: DEV_OWNER_EMAIL,
      ttlSeconds: DEV_OWNER_TOKEN_TTL_SECONDS,
    });
    const { exp } = decodeJwt(accessToken);
    return { accessToken, tokenType: 'Bearer', expiresAt: new Date((exp as number) * 1_000) };
  }
}
