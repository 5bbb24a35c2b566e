import type { WebSocket } from 'ws';
import type { Deps } from '../../composition/platform.js';
import type { Actor } from '../../kernel/actor.js';
import { AlertSubscriptionService } from '../operations/alert-subscriptions/index.js';
import { acceptConnection } from './connection.js';
import { issueCredentials } from './credentials.js';
import { RealtimeHub } from './hub.js';
import type { RealtimeCredentials } from './schemas.js';
import { ticketKey } from './tickets.js';

export type RealtimeDeps = Deps<
  'config' | 'db' | 'events' | 'load' | 'log' | 'metrics' | 'signingKey' | 'userChanges' | 'write'
>;

/**
 * The realtime socket's rules: a caller's ticket names the channels they may join; a socket is
 * admitted on its ticket into this instance's hub, which carries events, alerts and notifications.
 */
export class RealtimeService {
  /** This instance's sockets; the routes start it once the socket route is ready and close it at shutdown. */
  readonly hub: RealtimeHub;
  readonly #alerts: AlertSubscriptionService;
  #key: Buffer | undefined;

  constructor(private readonly deps: RealtimeDeps) {
    this.#alerts = new AlertSubscriptionService(deps.db, deps.write);
    const hub = new RealtimeHub(deps.db, deps.events, deps.userChanges, deps.log, {
      perInstance: deps.config.realtimeMaxSockets,
      perUser: deps.config.realtimeMaxSocketsPerUser,
    });
    deps.metrics?.readAtScrape(
      'realtime_connections',
      'Realtime WebSockets open on this instance now.',
      () => hub.connections,
    );
    this.hub = hub;
  }

  /** A ticket for the caller's own channels, as the permissions and roles they hold right now allow. */
  async credentials(actor: Actor): Promise<RealtimeCredentials> {
    const now = new Date();
    const roleKeys = await this.#alerts.roleKeysHeardBy(actor.userId, now);
    return issueCredentials(this.#ticketKey(), this.deps.config, actor.userId, actor.permissions, roleKeys, now);
  }

  /** Admits a socket on its ticket (connection.ts says how). */
  accept(socket: WebSocket, ticket: string | undefined): Promise<void> {
    return acceptConnection(this.hub, this.#ticketKey(), socket, ticket);
  }

  /** Read lazily: the email token key may come from the database once the kernel has started. */
  #ticketKey(): Buffer {
    this.#key ??= ticketKey(this.deps.signingKey);
    return this.#key;
  }
}
