import type { WebSocket } from 'ws';

/** RFC 6455's "Policy Violation". */
export const CLOSE_POLICY_VIOLATION = 1008;

/**
 * What one socket may cost. Clients only send `subscribe` frames, a few in a socket's life, so
 * the inbound budget is far above any real client and far below what a flood needs to hurt: each
 * frame (a ping or pong too) costs parsing and possibly a reply, and a reply waits in memory until
 * the client reads it.
 */
export const SOCKET_LIMITS = {
  /** Frames a socket may send at once (a burst), then... */
  burstFrames: 20,
  /** ...this many a second on average (a token bucket). */
  framesPerSecond: 10,
  /** Unreadable or unknown frames (each answered `invalid_message`) a socket may send in its life. */
  invalidFrames: 5,
  /** Output queued for a client that is not reading; past it the socket is closed, never buffered further. */
  unsentBytes: 256 * 1024,
  /** After a refusal's close frame, how long the client has to read it before the connection is cut. */
  closeGraceMs: 1_000,
} as const;

/**
 * Closes a socket that broke a limit, and stops reading from it at once: the rest of a flood stays
 * in the kernel's buffers (the client's problem) instead of being parsed here. A client that
 * reads gets the close frame; the connection is cut after a short grace either way.
 */
export function refuseSocket(socket: WebSocket, reason: string, code = CLOSE_POLICY_VIOLATION): void {
  if (socket.readyState !== socket.OPEN) return;
  socket.close(code, reason);
  stopReading(socket);
}

/**
 * Reads nothing more from a socket and cuts it after the grace: for a refused socket, and for one
 * that keeps sending frames after the service closed it (a client that honours the close sends
 * none), which would otherwise be parsed until the close handshake's own 30 s timeout.
 */
export function stopReading(socket: WebSocket): void {
  if (socket.isPaused) return;
  socket.pause();
  setTimeout(() => socket.terminate(), SOCKET_LIMITS.closeGraceMs).unref();
}

/** One socket's inbound budget: a token bucket of frames and a count of invalid ones. */
export class InboundBudget {
  #tokens: number = SOCKET_LIMITS.burstFrames;
  #refilledAt: number;
  #invalid = 0;

  constructor(private readonly clock: () => number = performance.now.bind(performance)) {
    this.#refilledAt = clock();
  }

  /** Takes one frame's token; false once the socket sends faster than the budget allows. */
  takeFrame(): boolean {
    const now = this.clock();
    const refill = ((now - this.#refilledAt) / 1000) * SOCKET_LIMITS.framesPerSecond;
    this.#tokens = Math.min(SOCKET_LIMITS.burstFrames, this.#tokens + refill);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Counts an invalid frame; false once the socket is past its allowance. */
  countInvalid(): boolean {
    this.#invalid += 1;
    return this.#invalid <= SOCKET_LIMITS.invalidFrames;
  }
}

/**
 * Sends a frame unless the client has left too much unread: then the socket is refused instead,
 * so a client that does not read costs at most `unsentBytes`. Frames to a closing socket are
 * dropped: it is going away anyway.
 */
export function sendBounded(socket: WebSocket, text: string): void {
  if (socket.readyState !== socket.OPEN) return;
  // Characters, not bytes: frames are JSON, almost all ASCII, and the bound need not be exact.
  if (socket.bufferedAmount + text.length > SOCKET_LIMITS.unsentBytes) {
    refuseSocket(socket, 'too much unread output');
    return;
  }
  socket.send(text);
}
