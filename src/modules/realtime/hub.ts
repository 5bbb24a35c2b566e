import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { WebSocket } from 'ws';
import type { Tables } from '../../db/tables.js';
import type { UserChanges } from '../../kernel/auth/user-cache.js';
import type { EventPublisher, PlatformEvent } from '../../kernel/events.js';
import { roleAlertChannel, roleKeysSubscribedTo } from '../operations/alert-subscriptions/index.js';
import { allowedChannels, areaChannelOf, DASHBOARD_CHANNEL, userChannel } from './channels.js';
import { broadcastNotificationsFor, socketAccess, type SocketAccess } from './queries.js';
import type { ServerFrame } from './schemas.js';
import { CLOSE_POLICY_VIOLATION, type InboundBudget, sendBounded } from './socket-limits.js';

/** Under the idle timeouts of common proxies (60 s), so an idle socket is never cut by one. */
export const HEARTBEAT_INTERVAL_MS = 25_000;
export { CLOSE_POLICY_VIOLATION };
const CLOSE_GOING_AWAY = 1001;
/**
 * How long account notices are gathered before their sockets are re-checked: a bulk grant's
 * thousand notices become one query, and a revocation still reaches its sockets within a blink.
 */
const RECHECK_GATHER_MS = 25;
/** A grant's expiry is re-checked this long after it: the database's clock may run a little behind ours. */
const EXPIRY_SLACK_MS = 250;
/** setTimeout's longest delay; a grant further out is re-checked by then (or by any notice before). */
const MAX_TIMER_MS = 2 ** 31 - 1;
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
/**
 * The maintenance level reaches every socket on its own user channel, not only the dashboard's
 * holders: every staff member's console shows it, and the level is no secret (players get it in
 * every 503 `panic_mode`). Only the level goes out; who and why are read from `GET /v1/me/maintenance`.
 */
const PANIC_CHANGED = 'ops.panic_changed';

/** One open socket on this instance. */
export interface Connection {
  socket: WebSocket;
  userId: string;
  /** The ticket's channels: the most this socket may ever join. */
  ticketChannels: ReadonlySet<string>;
  /** Those the user may join now: narrowed (and widened back, up to the ticket's) as their roles change. */
  allowed: ReadonlySet<string>;
  joined: Set<string>;
  /** What the socket may still send. */
  budget: InboundBudget;
  /** When its ticket was issued: a later "sign out everywhere" ends the connection. */
  issuedAt: Date;
  /** Answered the last ping. */
  alive: boolean;
}

/** Whether an account still admits a connection whose ticket was issued at `issuedAt`. */
export function admits(access: SocketAccess | undefined, issuedAt: Date): access is SocketAccess {
  if (access === undefined || access.status !== 'active') return false;
  return access.tokensValidAfter === null || access.tokensValidAfter < issuedAt;
}

/** The ticket's channels that the user's access allows now. */
export function channelsAllowedNow(
  userId: string,
  ticketChannels: ReadonlySet<string>,
  access: SocketAccess,
): Set<string> {
  const now = new Set(allowedChannels(userId, access.permissions, access.alertRoleKeys));
  return new Set([...ticketChannels].filter((channel) => now.has(channel)));
}

/**
 * This instance's sockets. Every instance subscribes to the kernel event bus, which already
 * delivers each committed event to every instance once, so each pushes to its own sockets only.
 */
export class RealtimeHub {
  readonly #connections = new Set<Connection>();
  readonly #byUser = new Map<string, Set<Connection>>();

  /** Sockets open on this instance now. */
  get connections(): number {
    return this.#connections.size;
  }
  /** Sockets holding a place (admitted or still being checked), in all and by user; freed when each closes. */
  #places = 0;
  readonly #placesByUser = new Map<string, number>();
  #unsubscribe: (() => void) | undefined;
  #unlistenAccounts: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  /** Users whose sockets are due a re-check (`everyone`: all of them), gathered for `RECHECK_GATHER_MS`. */
  readonly #due = new Set<string>();
  #everyoneDue = false;
  #gatherTimer: NodeJS.Timeout | undefined;
  /** One re-check at a time, so an older read never lands after a newer one. */
  #rechecking: Promise<void> | undefined;
  /** Per user with sockets here: the re-check at their soonest grant's expiry. */
  readonly #expiryTimers = new Map<string, NodeJS.Timeout>();
  /** Admissions reading an account now, by user, and whether a notice for the user arrived meanwhile. */
  readonly #admitting = new Map<string, { count: number; noticed: boolean }>();

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly events: EventPublisher,
    private readonly accounts: UserChanges,
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
    this.#unlistenAccounts = this.accounts.onAccountChange((who) => this.#onAccountChange(who));
    this.#timer = setInterval(() => void this.#heartbeat(), this.heartbeatMs);
    this.#timer.unref();
  }

  /**
   * Reads a user's access for a socket being admitted. Account notices heard while it is read
   * are remembered, and the user's sockets re-checked once it is added (`add`), so a change that
   * commits during the read is never missed.
   */
  async readAccess(userId: string): Promise<SocketAccess | undefined> {
    const admitting = this.#admitting.get(userId) ?? { count: 0, noticed: false };
    admitting.count += 1;
    this.#admitting.set(userId, admitting);
    try {
      return (await socketAccess(this.db, [userId], new Date())).get(userId);
    } finally {
      admitting.count -= 1;
      if (admitting.noticed) this.#markDue(userId);
      if (admitting.count === 0) this.#admitting.delete(userId);
    }
  }

  add(connection: Connection, access: SocketAccess): void {
    this.#connections.add(connection);
    const ofUser = this.#byUser.get(connection.userId) ?? new Set();
    if (ofUser.size === 0) this.#scheduleExpiry(connection.userId, access.grantsChangeAt);
    ofUser.add(connection);
    this.#byUser.set(connection.userId, ofUser);
    connection.socket.on('pong', () => {
      connection.alive = true;
    });
    connection.socket.on('close', () => this.#remove(connection));
  }

  /** Stops listening and closes every socket with "going away", so clients know to reconnect elsewhere. */
  close(): void {
    this.#unsubscribe?.();
    this.#unlistenAccounts?.();
    clearInterval(this.#timer);
    clearTimeout(this.#gatherTimer);
    for (const timer of this.#expiryTimers.values()) clearTimeout(timer);
    this.#expiryTimers.clear();
    for (const { socket } of this.#connections) socket.close(CLOSE_GOING_AWAY, 'server shutting down');
    this.#connections.clear();
    this.#byUser.clear();
  }

  #remove(connection: Connection): void {
    this.#connections.delete(connection);
    const ofUser = this.#byUser.get(connection.userId);
    if (ofUser === undefined) return;
    ofUser.delete(connection);
    if (ofUser.size > 0) return;
    this.#byUser.delete(connection.userId);
    clearTimeout(this.#expiryTimers.get(connection.userId));
    this.#expiryTimers.delete(connection.userId);
  }

  #onEvent(event: PlatformEvent): void {
    if (event.kind === 'alert') return void this.#deliverAlert(event);
    const frame = eventFrame(DASHBOARD_CHANNEL, event);
    for (const connection of this.#connections)
      if (connection.joined.has(DASHBOARD_CHANNEL)) send(connection.socket, frame);
    const area = areaChannelOf(event.name);
    if (area !== undefined) {
      const areaFrame = eventFrame(area, event);
      for (const connection of this.#connections) if (connection.joined.has(area)) send(connection.socket, areaFrame);
    }
    if (event.name === BROADCAST_SENT) void this.#deliverBroadcast(event);
    if (event.name === PANIC_CHANGED) this.#deliverPanicLevel(event);
  }

  #deliverPanicLevel(event: PlatformEvent): void {
    const level = { ...event, payload: { level: event.payload.level } };
    for (const connection of this.#connections) {
      const channel = userChannel(connection.userId);
      if (connection.joined.has(channel)) send(connection.socket, eventFrame(channel, level));
    }
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

  /**
   * A change to a user's account, grants or roles (migration 0032's notices; `*` for a role
   * edited or deleted): on every instance, their open sockets are re-checked within moments.
   */
  #onAccountChange(who: string): void {
    if (who === '*') {
      for (const admitting of this.#admitting.values()) admitting.noticed = true;
      if (this.#byUser.size > 0) this.#markEveryoneDue();
      return;
    }
    const admitting = this.#admitting.get(who);
    if (admitting !== undefined) admitting.noticed = true;
    if (this.#byUser.has(who)) this.#markDue(who);
  }

  #markDue(userId: string): void {
    this.#due.add(userId);
    this.#scheduleRecheck();
  }

  #markEveryoneDue(): void {
    this.#everyoneDue = true;
    this.#scheduleRecheck();
  }

  #scheduleRecheck(): void {
    if (this.#gatherTimer !== undefined) return;
    this.#gatherTimer = setTimeout(() => {
      this.#gatherTimer = undefined;
      void this.#recheckDue();
    }, RECHECK_GATHER_MS);
    this.#gatherTimer.unref();
  }

  async #recheckDue(): Promise<void> {
    if (this.#rechecking !== undefined) {
      // Runs again once the one under way ends: what it reads may predate what is now due.
      await this.#rechecking;
      return this.#recheckDue();
    }
    const users = this.#everyoneDue ? [...this.#byUser.keys()] : [...this.#due].filter((id) => this.#byUser.has(id));
    this.#everyoneDue = false;
    this.#due.clear();
    if (users.length === 0) return;
    this.#rechecking = this.#recheck(users);
    try {
      await this.#rechecking;
    } finally {
      this.#rechecking = undefined;
    }
  }

  /**
   * Reads the users' access now and applies it to each of their sockets: a refused account's
   * sockets are closed, the others leave the channels they may no longer join.
   */
  async #recheck(userIds: string[]): Promise<void> {
    let access: Map<string, SocketAccess>;
    try {
      access = await socketAccess(this.db, userIds, new Date());
    } catch (error) {
      // The heartbeat tries everyone again; until then the sockets keep what they had.
      this.log.warn({ err: error }, 'realtime account re-check failed');
      return;
    }
    for (const userId of userIds) {
      const connections = this.#byUser.get(userId);
      if (connections === undefined) continue;
      const userAccess = access.get(userId);
      this.#scheduleExpiry(userId, userAccess?.grantsChangeAt ?? null);
      for (const connection of connections) applyAccess(connection, userAccess);
    }
  }

  /** The user's sockets are re-checked when their soonest grant expires (no notice says so). */
  #scheduleExpiry(userId: string, at: Date | null): void {
    clearTimeout(this.#expiryTimers.get(userId));
    this.#expiryTimers.delete(userId);
    if (at === null) return;
    const delay = Math.min(Math.max(at.getTime() - Date.now(), 0) + EXPIRY_SLACK_MS, MAX_TIMER_MS);
    const timer = setTimeout(() => {
      this.#expiryTimers.delete(userId);
      this.#markDue(userId);
    }, delay);
    timer.unref();
    this.#expiryTimers.set(userId, timer);
  }

  /** Drops sockets that missed a ping, pings the rest, and re-checks every user's access (a notice may have been lost). */
  async #heartbeat(): Promise<void> {
    for (const connection of this.#connections) {
      if (!connection.alive) {
        connection.socket.terminate();
        this.#remove(connection);
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
    if (this.#byUser.size > 0) this.#markEveryoneDue();
  }
}

/**
 * Applies a user's access now to one socket: closed (1008) when the account no longer admits
 * it; otherwise it may join what its ticket and the user's permissions both allow, and leaves
 * the channels it may no longer be in, told with `channel_not_allowed` and its new `subscribed`.
 */
export function applyAccess(connection: Connection, access: SocketAccess | undefined): void {
  if (!admits(access, connection.issuedAt)) {
    connection.socket.close(CLOSE_POLICY_VIOLATION, 'account refused');
    return;
  }
  connection.allowed = channelsAllowedNow(connection.userId, connection.ticketChannels, access);
  const left = [...connection.joined].filter((channel) => !connection.allowed.has(channel));
  if (left.length === 0) return;
  for (const channel of left) connection.joined.delete(channel);
  send(connection.socket, { type: 'error', error: 'channel_not_allowed', channels: left });
  send(connection.socket, { type: 'subscribed', channels: [...connection.joined] });
}

function eventFrame(channel: string, event: PlatformEvent): ServerFrame {
  return {
    type: 'event',
    channel,
    id: event.id,
    name: event.name,
    payload: event.payload,
    actor_id: event.actorId,
    at: event.createdAt,
  };
}

/** Frames to a socket that is closing are dropped; a socket whose client leaves them unread is closed (socket-limits.ts). */
export function send(socket: WebSocket, frame: ServerFrame): void {
  if (socket.readyState === socket.OPEN) sendBounded(socket, JSON.stringify(frame));
}
