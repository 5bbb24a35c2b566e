import pg from 'pg';

const RECONNECT_DELAY_MS = 1_000;

/** A notification channel subscription; `onResync` runs when notifications may have been missed. */
export interface ListenHandlers {
  onMessage(payload: string): void;
  onResync(): void;
}

/**
 * LISTEN on one channel over a dedicated connection (a pooled one would be handed to queries).
 * When the connection drops it reconnects and asks its subscriber to resync, since
 * notifications sent while it was away are lost.
 */
export class PgListener {
  #client: pg.Client | undefined;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly channel: string,
    private readonly handlers: ListenHandlers,
    /** As the pool's: a database that accepts and never answers must not hold a start or a reconnect forever. */
    private readonly connectTimeoutMs: number,
  ) {}

  async start(): Promise<void> {
    await this.#connect();
  }

  async #connect(): Promise<void> {
    // keepAlive: a listener whose connection died without a word (a dropped route, a failover)
    // would otherwise wait forever and hear nothing; the socket's probes end it and it reconnects.
    const client = new pg.Client({
      connectionString: this.connectionString,
      connectionTimeoutMillis: this.connectTimeoutMs,
      keepAlive: true,
    });
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.handlers.onMessage(message.payload ?? '');
    });
    const lost = () => {
      if (client !== this.#client) return;
      this.#client = undefined;
      client.end().catch(() => {});
      this.#scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
    } catch (error) {
      client.end().catch(() => {});
      throw error;
    }
    this.#client = client;
  }

  #scheduleReconnect(): void {
    if (this.#stopped || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#connect().then(
        () => this.handlers.onResync(),
        () => this.#scheduleReconnect(),
      );
    }, RECONNECT_DELAY_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}
