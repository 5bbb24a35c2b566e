import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { WebSocket } from 'ws';
import type { Tables } from '../../db/tables.js';
import type { EventPublisher, PlatformEvent } from '../../kernel/events.js';
import { roleAlertChannel, roleKeysSubscribedTo } from '../alert-subscriptions/index.js';
import { DASHBOARD_CHANNEL, userChannel } from './channels.js';
import { accountStandings, broadcastNotificationsFor, type AccountStanding } from './queries.js';
import type { ServerFrame } from './schemas.js';

/** Under the idle timeouts of common proxies (60 s), so an idle socket is never cut by one. */
export const HEARTBEAT_INTERVAL_MS = 25_000;
export const CLOSE_POLICY_VIOLATION = 1008;
const CLOSE_GOING_AWAY = 1001;
/** RFC 6455's "Try Again Later": this instance holds as many sockets as it may. */
export const CLOSE_TRY_AGAIN_LATER = 1013;

/** How many sockets an instance holds open: in all, and for one user. */
export interface SocketCaps {
  perInstance: number;
  perUser: number;
}

/** Why a socket was not given a place: its close code and reason. */
export interface SocketRefusal {
  code: number;
  reason: string;
}
const BROADCAST_SENT = 'notifications.broadcast_sent';

/** One open socket on this instance. */
export interface Connection {
  socket: WebSocket;
  userId: string;
  /** The ticket's channels: the most this socket may ever join. */
  allowed: ReadonlySet<string>;
  joined: Set<string>;
  /** When its ticket was issued: a later "sign out everywhere" ends the connection. */
  issuedAt: Date;
  /** Answered the last ping. */
  alive: boolean;
}

/** Whether a standing still admits a connection whose ticket was issued at `issuedAt`. */
export function admits(standing: AccountStanding | undefined, issuedAt: Date): boolean {
  if (standing === undefined || standing.status !== 'active') return false;
  return standing.tokensValidAfter === null || standing.tokensValidAfter < issuedAt;
}

/**
 * This instance's sockets. Every instance subscribes to the kernel event bus, which already
 * delivers each committed event to every instance once, so each pushes to its own sockets only.
 */
export class RealtimeHub {
  readonly #connections = new Set<Connection>();

  /** Sockets open on this instance now. */
  get connections(): number {
    return this.#connections.size;
  }
  /** Sockets holding a place (admitted or still being checked), in all and by user; freed when each closes. */
  #places = 0;
  readonly #placesByUser = new Map<string, number>();
  #unsubscribe: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly events: EventPublisher,
    private readonly log: FastifyBaseLogger,
    private readonly caps: SocketCaps,
    private readonly heartbeatMs = HEARTBEAT_INTERVAL_MS,
  ) {}

  /**
   * Takes a place for one more socket of `userId` (held until the socket closes), or says which
   * cap refuses it: a thousand players' sockets never starve the instance, nor one player's
   * thousand sockets the others.
   */
  takePlace(socket: WebSocket, userId: string): SocketRefusal | undefined {
    if (this.#places >= this.caps.perInstance) {
      return { code: CLOSE_TRY_AGAIN_LATER, reason: 'too many sockets on this instance' };
    }
    const ofUser = this.#placesByUser.get(userId) ?? 0;
    if (ofUser >= this.caps.perUser) return { code: CLOSE_POLICY_VIOLATION, reason: 'too many sockets for this user' };
    this.#places += 1;
    this.#placesByUser.set(userId, ofUser + 1);
    socket.once('close', () => {
      this.#places -= 1;
      const left = (this.#placesByUser.get(userId) ?? 1) - 1;
      if (left === 0) this.#placesByUser.delete(userId);
      else this.#placesByUser.set(userId, left);
    });
    return undefined;
  }

  /** Sockets holding a place on this instance. */
  get places(): number {
    return this.#places;
  }

  start(): void {
    this.#unsubscribe = this.events.subscribe((event) => this.#onEvent(event));
    this.#timer = setInterval(() => void this.#heartbeat(), this.heartbeatMs);
    this.#timer.unref();
  }

  add(connection: Connection): void {
    this.#connections.add(connection);
    connection.socket.on('pong', () => {
      connection.alive = true;
    });
    connection.socket.on('close', () => this.#connections.delete(connection));
  }

  /** Stops listening and closes every socket with "going away", so clients know to reconnect elsewhere. */
  close(): void {
    this.#unsubscribe?.();
    clearInterval(this.#timer);
    for (const { socket } of this.#connections) socket.close(CLOSE_GOING_AWAY, 'server shutting down');
    this.#connections.clear();
  }

  #onEvent(event: PlatformEvent): void {
    if (event.kind === 'alert') return void this.#deliverAlert(event);
    const frame = eventFrame(DASHBOARD_CHANNEL, event);
    for (const connection of this.#connections)
      if (connection.joined.has(DASHBOARD_CHANNEL)) send(connection.socket, frame);
    if (event.name === BROADCAST_SENT) void this.#deliverBroadcast(event);
  }

  /** To the channels of the roles subscribed to the alert, once per socket however many of its roles hear it. */
  async #deliverAlert(event: PlatformEvent): Promise<void> {
    if (this.#connections.size === 0) return;
    try {
      const channels = (await roleKeysSubscribedTo(this.db, event.name)).map(roleAlertChannel);
      for (const connection of this.#connections) {
        const channel = channels.find((candidate) => connection.joined.has(candidate));
        if (channel !== undefined) send(connection.socket, eventFrame(channel, event));
      }
    } catch (error) {
      this.log.error({ err: error, alert: event.name }, 'realtime alert delivery failed');
    }
  }

  /** One query for every listening user on this instance, then one frame per user who now sees it. */
  async #deliverBroadcast(event: PlatformEvent): Promise<void> {
    const broadcastId = event.payload.broadcast_id;
    if (typeof broadcastId !== 'string') return;
    const listening = [...this.#connections].filter((c) => c.joined.has(userChannel(c.userId)));
    if (listening.length === 0) return;
    try {
      const delivered = await broadcastNotificationsFor(
        this.db,
        broadcastId,
        [...new Set(listening.map((c) => c.userId))],
        new Date(),
      );
      const byUser = new Map(delivered.map((d) => [d.userId, d.notification]));
      for (const connection of listening) {
        const notification = byUser.get(connection.userId);
        const channel = userChannel(connection.userId);
        // Re-checked: the socket may have narrowed its channels while the query ran.
        if (notification !== undefined && connection.joined.has(channel))
          send(connection.socket, { type: 'notification', channel, notification, at: event.createdAt });
      }
    } catch (error) {
      this.log.error({ err: error, broadcast_id: broadcastId }, 'realtime notification delivery failed');
    }
  }

  /** Drops sockets that missed a ping, pings the rest, and ends those of users since banned, deleted or signed out. */
  async #heartbeat(): Promise<void> {
    for (const connection of this.#connections) {
      if (!connection.alive) {
        connection.socket.terminate();
        this.#connections.delete(connection);
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
    if (this.#connections.size === 0) return;
    try {
      const standings = await accountStandings(this.db, [...new Set([...this.#connections].map((c) => c.userId))]);
      for (const connection of this.#connections) {
        if (!admits(standings.get(connection.userId), connection.issuedAt))
          connection.socket.close(CLOSE_POLICY_VIOLATION, 'account refused');
      }
    } catch (error) {
      this.log.warn({ err: error }, 'realtime account re-check failed');
    }
  }
}

function eventFrame(channel: string, event: PlatformEvent): ServerFrame {
  return { type: 'event', channel, id: event.id, name: event.name, payload: event.payload, at: event.createdAt };
}

/** Frames to a socket that is closing are dropped: it is going away anyway. */
export function send(socket: WebSocket, frame: ServerFrame): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
}
