import type { Kysely } from 'kysely';
import type { PanicLevel, Tables } from '../db/tables.js';
import { AppError } from './errors.js';
import type { ChangeBus } from './change-bus.js';

export const PANIC_LEVELS = ['off', 'degraded', 'lockdown'] as const;
export const PANIC_RETRY_AFTER_SECONDS = 30;
export const PANIC_TOPIC = 'panic';
/** If a notification is ever lost, the level still converges within this period. */
const SAFETY_REFRESH_MS = 5_000;

export interface PanicState {
  level: PanicLevel;
  reason: string | null;
  set_by: string | null;
  set_at: string | null;
  auto: boolean;
}

export const PANIC_OFF: PanicState = { level: 'off', reason: null, set_by: null, set_at: null, auto: false };

/** The spec's 503 body `{ error: 'panic_mode', level, reason }`, with Retry-After. */
export class PanicModeError extends AppError {
  constructor(
    readonly level: PanicLevel,
    readonly reason: string | null,
  ) {
    super(503, 'panic_mode', undefined, { 'retry-after': String(PANIC_RETRY_AFTER_SECONDS) });
  }

  #text: string | undefined;

  override toBody() {
    return { error: 'panic_mode', level: this.level, reason: this.reason };
  }

  /** One instance answers every request its state refuses (`PanicMonitor.refusal`): its text is kept. */
  override keptText(): string {
    this.#text ??= JSON.stringify(this.toBody());
    return this.#text;
  }
}

/** Routes refused in `degraded`: new checkouts and new game sessions. */
const DEGRADED_REFUSALS = new Set(['POST /v1/me/billing/checkout-session', 'POST /v1/me/sessions']);
/** The one client write `lockdown` lets through: players can always stop a running session. */
const LOCKDOWN_ALLOWED = new Set(['POST /v1/me/sessions/stop']);
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function isClientPath(routePath: string): boolean {
  const under = (area: string) => routePath === area || routePath.startsWith(`${area}/`);
  return under('/v1/public') || under('/v1/me');
}

/**
 * Would a request to this route be refused at this level? Decided by method and the route the
 * router matched (its declared path, `/v1/me/support/:ticketId/messages`), never by the raw URL:
 * every spelling the router serves (absolute-form, `#fragment`, escapes, `;` parameters) reaches
 * one route and gets one answer. Routes that arrive later are covered without changes here.
 */
export function isRefusedAt(level: PanicLevel, method: string, routePath: string): boolean {
  if (level === 'off' || READ_METHODS.has(method)) return false;
  if (!isClientPath(routePath)) return false; // staff routes, /health, webhooks
  const route = `${method} ${routePath}`;
  if (level === 'degraded') return DEGRADED_REFUSALS.has(route);
  return !LOCKDOWN_ALLOWED.has(route);
}

function toState(row: {
  level: PanicLevel;
  reason: string | null;
  set_by: string | null;
  set_at: Date | null;
  auto: boolean;
}): PanicState {
  return {
    level: row.level,
    reason: row.reason,
    set_by: row.set_by,
    set_at: row.set_at?.toISOString() ?? null,
    auto: row.auto,
  };
}

export async function readPanicState(db: Kysely<Tables>): Promise<PanicState> {
  const row = await db
    .selectFrom('ops_panic_state')
    .select(['level', 'reason', 'set_by', 'set_at', 'auto'])
    .executeTakeFirst();
  return row === undefined ? PANIC_OFF : toState(row);
}

/**
 * The level this instance enforces, held in memory so the gate costs no query. A change on any
 * instance arrives through the change bus after commit; a slow poll covers lost notifications.
 */
export class PanicMonitor {
  #state: PanicState = PANIC_OFF;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: Array<() => void> = [];
  #readsStarted = 0;
  #newestApplied = 0;
  #refusal: PanicModeError | undefined;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly bus: ChangeBus,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  get state(): PanicState {
    return this.#state;
  }

  async start(): Promise<void> {
    const refresh = () => void this.refresh().catch(this.onError);
    this.#unsubscribe = [this.bus.on(PANIC_TOPIC, refresh), this.bus.onResync(refresh)];
    await this.refresh();
    this.#timer = setInterval(refresh, SAFETY_REFRESH_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
  }

  async refresh(): Promise<PanicState> {
    const read = ++this.#readsStarted;
    const state = await readPanicState(this.db);
    // Reads can finish out of order (a slow poll begun before a change ends after the notified
    // read): a read never overwrites the state of one started after it.
    if (read > this.#newestApplied) {
      this.#newestApplied = read;
      this.#state = state;
      this.#refusal = undefined;
    }
    return this.#state;
  }

  /**
   * The 503 when the current level refuses a request to this route (the router's match), else
   * undefined. One refusal per applied state, answered to every request it refuses: a flood in
   * lockdown allocates no error each (its body and headers never change while the state stays).
   */
  refusal(method: string, routePath: string): PanicModeError | undefined {
    const { level } = this.#state;
    if (level === 'off' || !isRefusedAt(level, method, routePath)) return undefined;
    this.#refusal ??= new PanicModeError(level, this.#state.reason);
    return this.#refusal;
  }
}
