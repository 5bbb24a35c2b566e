import type { FastifyBaseLogger } from 'fastify';
import type { PeerCallMeter } from '../../lib/spans.js';
import { GoTrueIdentityProvider } from './gotrue.js';
import type { IdentityConfig, IdentityProvider } from './index.js';
import { LocalIdentityProvider } from './local.js';

/** What choosing a provider reads: the identity settings, and the shared HS256 secret sign-out needs. */
export interface IdentityProviderConfig extends IdentityConfig {
  jwtSecret: string | undefined;
}

/** `gotrue` when an admin URL is configured, else `local`; GoTrue's calls measured on `meter` when given. */
export function createIdentityProvider(
  config: IdentityProviderConfig,
  log: FastifyBaseLogger,
  meter?: PeerCallMeter,
): IdentityProvider {
  if (config.identityAdminUrl === undefined) return new LocalIdentityProvider();
  // Config loading refuses an admin URL without a key; this guards callers that build config by hand.
  if (config.identityServiceKey === undefined)
    throw new Error('IDENTITY_SERVICE_KEY must be set when IDENTITY_ADMIN_URL is set');
  if (config.jwtSecret === undefined) {
    log.warn(
      'identity provider is gotrue but JWT_SECRET is not set: signing a user out will fail (GoTrue ends sessions ' +
        'only through /logout, with a token for the user)',
    );
  }
  return new GoTrueIdentityProvider({
    adminUrl: config.identityAdminUrl,
    serviceKey: config.identityServiceKey,
    timeoutMs: config.identityTimeoutMs,
    jwtSecret: config.jwtSecret,
    log,
    meter,
  });
}
