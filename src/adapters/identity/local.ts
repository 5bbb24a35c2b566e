import type { IdentityAccount, IdentityProvider } from './index.js';

/**
 * The embedded default: no outside identity store exists (tokens are minted with the shared
 * secret, by `platform-api token` or a test). Every effect of a ban, sign-out or deletion lives
 * in the service's own tables, which the users service changes itself; so there is nothing
 * further to ask and each call succeeds as soon as it is made.
 */
export class LocalIdentityProvider implements IdentityProvider {
  readonly kind = 'local' as const;

  async fetchUser(): Promise<IdentityAccount | null> {
    return null;
  }

  async banUser(): Promise<void> {}

  async unbanUser(): Promise<void> {}

  async signOut(): Promise<void> {}

  async deleteUser(): Promise<void> {}
}
