import type { PlatformClient } from './client.js';
import { unwrap } from './errors.js';
import type { ListBody, ListItem } from './pagination.js';

/** A notification as the player's list shows it. */
export type RealtimeNotification = ListItem<ListBody<'/v1/me/notifications'>>;

/** The socket joined these channels (on connect, and after each `subscribe`). */
export interface SubscribedFrame {
  type: 'subscribed';
  channels: string[];
}
/** A dashboard event (`dashboard`) or an alert (`alerts:<role key>`, e.g. `panic_mode_changed`). */
export interface EventFrame {
  type: 'event';
  channel: string;
  id: number;
  name: string;
  payload: Record<string, unknown>;
  /** The staff member whose write published it; null for the service's own (jobs, monitoring). */
  actor_id: string | null;
  at: string;
}
/** A broadcast reached the user (`user:<id>`). */
export interface NotificationFrame {
  type: 'notification';
  channel: string;
  notification: RealtimeNotification;
  at: string;
}
/** A `subscribe` the server refused: channels the ticket does not allow, or an unreadable frame. */
export type ErrorFrame =
  | { type: 'error'; error: 'channel_not_allowed'; channels: string[] }
  | { type: 'error'; error: 'invalid_message' };

export type RealtimeFrame = SubscribedFrame | EventFrame | NotificationFrame | ErrorFrame;

/** How a socket ended, and when the next one opens (undefined after `close()`). */
export interface RealtimeClose {
  code: number;
  reason: string;
  reconnectInMs: number | undefined;
}

export interface RealtimeListeners {
  /** Every frame, whatever its type. */
  frame: (frame: RealtimeFrame) => void;
  subscribed: (frame: SubscribedFrame) => void;
  event: (frame: EventFrame) => void;
  notification: (frame: NotificationFrame) => void;
  /** The server's `error` frames. */
  refused: (frame: ErrorFrame) => void;
  /** A socket opened (its `subscribed` frame follows). */
  open: () => void;
  close: (close: RealtimeClose) => void;
  /**
   * No ticket could be had (a `PlatformApiError`, or the network's error), or the socket could not
   * be made from it; another attempt follows.
   */
  failure: (error: unknown) => void;
}

/** What the helper needs of a WebSocket: the browser's, Node 22's global, or the `ws` package's. */
export interface RealtimeSocket {
  /** 1 is OPEN, as in every WebSocket implementation. */
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
}
export type RealtimeSocketConstructor = new (url: string) => RealtimeSocket;

export interface RealtimeOptions {
  /** Default: `globalThis.WebSocket` (browsers, Node 22); on Node 20 pass `WebSocket` from `ws`. */
  WebSocket?: RealtimeSocketConstructor;
  /** Join only these of the ticket's channels (default: all of them), again after every reconnect. */
  channels?: string[];
  /** The wait before reconnecting: from `initialDelayMs` (default 500), doubled per failed attempt up to `maxDelayMs` (30 s). */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

export interface RealtimeConnection {
  on<Type extends keyof RealtimeListeners>(type: Type, listener: RealtimeListeners[Type]): () => void;
  /** Joins exactly these channels (of those the ticket allows), now and after every reconnect. */
  subscribe(channels: string[]): void;
  /** Closes the socket and stops reconnecting. */
  close(): void;
}

const OPEN = 1;

type Emit = <Type extends keyof RealtimeListeners>(type: Type, ...args: Parameters<RealtimeListeners[Type]>) => void;

function parseFrame(data: unknown): RealtimeFrame | undefined {
  try {
    const frame: unknown = JSON.parse(typeof data === 'string' ? data : String(data));
    return typeof frame === 'object' && frame !== null && 'type' in frame ? (frame as RealtimeFrame) : undefined;
  } catch {
    return undefined;
  }
}

function dispatch(frame: RealtimeFrame, emit: Emit): void {
  emit('frame', frame);
  if (frame.type === 'subscribed') emit('subscribed', frame);
  else if (frame.type === 'event') emit('event', frame);
  else if (frame.type === 'notification') emit('notification', frame);
  else if (frame.type === 'error') emit('refused', frame);
}

/**
 * The realtime socket, kept open: a ticket from `GET /v1/me/realtime` (the client's token provider
 * signs that call), the socket at the ticket's `url`, and after any close a new ticket and socket,
 * waiting longer after each attempt that does not get as far as `subscribed`.
 */
export function connectRealtime(client: PlatformClient, options: RealtimeOptions = {}): RealtimeConnection {
  const found = options.WebSocket ?? (globalThis as { WebSocket?: RealtimeSocketConstructor }).WebSocket;
  if (found === undefined) throw new TypeError('connectRealtime: no global WebSocket; pass options.WebSocket');
  const WebSocketClass: RealtimeSocketConstructor = found;
  const initialDelayMs = options.initialDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const listeners = new Map<keyof RealtimeListeners, Set<(...args: never[]) => void>>();
  let channels = options.channels;
  let socket: RealtimeSocket | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failedAttempts = 0;
  let closed = false;

  const emit: Emit = (type, ...args) => {
    for (const listener of listeners.get(type) ?? []) (listener as (...values: typeof args) => void)(...args);
  };

  /** Half the backoff step plus a random part of the other half, so many clients do not return at once. */
  const nextDelay = () => {
    const step = Math.min(maxDelayMs, initialDelayMs * 2 ** failedAttempts);
    failedAttempts += 1;
    return Math.round(step / 2 + Math.random() * (step / 2));
  };

  /** Opens the next socket after the backoff's wait; the wait, or undefined once `close()` was called. */
  const reconnectLater = () => {
    if (closed) return undefined;
    const delay = nextDelay();
    timer = setTimeout(() => void open(), delay);
    return delay;
  };

  async function open(): Promise<void> {
    timer = undefined;
    let credentials: { ticket: string; url: string };
    try {
      credentials = await unwrap(client.GET('/v1/me/realtime'));
    } catch (error) {
      emit('failure', error);
      reconnectLater();
      return;
    }
    if (closed) return;
    let current: RealtimeSocket;
    try {
      const url = new URL(credentials.url);
      url.searchParams.set('ticket', credentials.ticket);
      current = new WebSocketClass(url.toString());
    } catch (error) {
      // A URL the runtime refuses (a page on https given a ws: URL): reported, and tried again.
      emit('failure', error);
      reconnectLater();
      return;
    }
    socket = current;
    current.addEventListener('open', () => {
      emit('open');
      if (channels !== undefined) current.send(JSON.stringify({ type: 'subscribe', channels }));
    });
    current.addEventListener('message', (event) => {
      const frame = parseFrame(event.data);
      if (frame === undefined) return;
      if (frame.type === 'subscribed') failedAttempts = 0;
      dispatch(frame, emit);
    });
    // A failed socket also closes: the close event alone decides what happens next.
    current.addEventListener('error', () => {});
    current.addEventListener('close', (event) => {
      if (socket === current) socket = undefined;
      emit('close', { code: event.code, reason: event.reason, reconnectInMs: reconnectLater() });
    });
  }

  void open();
  return {
    on(type, listener) {
      const set = listeners.get(type) ?? new Set();
      set.add(listener);
      listeners.set(type, set);
      return () => set.delete(listener);
    },
    subscribe(next) {
      channels = [...next];
      // A socket still connecting sends them once open.
      if (socket?.readyState === OPEN) socket.send(JSON.stringify({ type: 'subscribe', channels }));
    },
    close() {
      closed = true;
      clearTimeout(timer);
      socket?.close(1000, 'closed by the client');
    },
  };
}
