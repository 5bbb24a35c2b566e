import type { Kysely } from 'kysely';
import { MailTransportError, type MailTransport } from '../../../adapters/mail/index.js';
import type { Tables } from '../../../db/tables.js';
import type { Deps } from '../../../composition/platform.js';
import type { Writes } from '../../../kernel/write.js';
import type { TemplateParts } from '../render.js';
import { composeContext, composeMessage, type ComposeContext } from './compose.js';
import {
  claimDueMessages,
  failExpiredLeases,
  settleClaim,
  templateVersionsOf,
  versionKey,
  type ClaimedMessage,
  type SendOutcome,
  type SettledMessage,
} from './dispatch-queries.js';
import { SendPacer } from './pacer.js';

export type { SettledMessage } from './dispatch-queries.js';

/**
 * Delivers queued email: every instance runs one, polling email_messages. A round fails the
 * messages whose sender died mid-send, claims a batch of due ones (committed before any send),
 * sends them through the transport at the configured rate, and records each outcome in a short
 * transaction of its own. No transaction is open during a send, so a slow SMTP server holds no
 * locks (and, on the embedded database, does not hold its only connection).
 *
 * Delivery is at most once: a message is handed to the transport only under a claim whose lease
 * has time left for the send, and a claim that ran out is failed as 'interrupted', never resent.
 */

/** Runs inside the transaction that records outcomes (campaigns count failures and pause here). */
export type SettleListener = (trx: Kysely<Tables>, settled: SettledMessage[]) => Promise<void>;

export const MAX_ATTEMPTS = 5;
const RETRY_BASE_MS = 30_000;
const RETRY_CAP_MS = 60 * 60_000;
const DEFAULT_BATCH_SIZE = 50;
const DEFAULT_IDLE_POLL_MS = 500;
/** After a failed round (the database unreachable): wait longer, so the log is not flooded. */
const ERROR_POLL_MS = 5_000;
const DEFAULT_CONCURRENCY = 4;
/** Above the SMTP transport's own budget (60 s), so normally the transport aborts first and closes its connection. */
const DEFAULT_SEND_DEADLINE_MS = 75_000;
const MIN_START_WINDOW_MS = 60_000;
/** Time kept at the end of a lease for recording the last outcome. */
const SETTLE_MARGIN_MS = 15_000;

/** 30 s, 1 min, 2 min, 4 min … at most an hour: after the attempt numbered `attempts`. */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

/**
 * What became of a message the dispatcher settled (metrics): `sent` (the transport took it),
 * `failed` for good (refused permanently, attempts exhausted, interrupted mid-send, template
 * missing), `retrying` (this attempt failed, queued again) or `skipped` (marketing mail to a
 * suppressed address).
 */
export const MAIL_OUTCOMES = ['sent', 'failed', 'retrying', 'skipped'] as const;
export type MailOutcome = (typeof MAIL_OUTCOMES)[number];

export interface DispatchRound {
  /** Leases found expired and failed as 'interrupted'. */
  interrupted: number;
  /** Marketing messages to suppressed addresses, skipped at claim. */
  skipped: number;
  claimed: number;
  sent: number;
  failed: number;
  /** Back in the queue for a later attempt. */
  retrying: number;
  /** Claimed but not attempted (stopping, or the lease too short for another send). */
  released: number;
  /** Outcomes not recorded: the claim had expired (another instance failed it as interrupted), or recording failed. */
  lost: number;
}

interface DispatcherLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface MailDispatcherOptions {
  write: Writes;
  transport: MailTransport;
  /** Read when a message is composed (the token key exists only once the kernel started). */
  compose: () => ComposeContext;
  ratePerSecond: number;
  log?: DispatcherLog;
  batchSize?: number;
  idlePollMs?: number;
  concurrency?: number;
  sendDeadlineMs?: number;
  /** Counts outcomes once recorded (committed); absent when nothing is measured. */
  countOutcome?: (outcome: MailOutcome, messages: number) => void;
}

/** A listener failed: the outcomes are recorded again without listeners rather than lost. */
class ListenerFailure extends Error {
  constructor(readonly listenerError: unknown) {
    super('a settle listener failed');
  }
}

function deadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new MailTransportError(`no answer from the mail transport within ${ms} ms`, false)),
      ms,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const asTransportError = (thrown: unknown) =>
  thrown instanceof MailTransportError
    ? thrown
    : new MailTransportError(thrown instanceof Error ? thrown.message : String(thrown), false);

export class MailDispatcher {
  readonly #write: Writes;
  readonly #transport: MailTransport;
  readonly #compose: () => ComposeContext;
  readonly #log: DispatcherLog | undefined;
  readonly #pacer: SendPacer;
  readonly #batchSize: number;
  readonly #idlePollMs: number;
  readonly #concurrency: number;
  readonly #sendDeadlineMs: number;
  readonly #leaseMs: number;
  readonly #listeners: SettleListener[] = [];
  readonly #countOutcome: (outcome: MailOutcome, messages: number) => void;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #stopping = false;

  constructor(options: MailDispatcherOptions) {
    this.#write = options.write;
    this.#transport = options.transport;
    this.#compose = options.compose;
    this.#log = options.log;
    this.#pacer = new SendPacer(options.ratePerSecond);
    this.#batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.#idlePollMs = options.idlePollMs ?? DEFAULT_IDLE_POLL_MS;
    this.#concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.#sendDeadlineMs = options.sendDeadlineMs ?? DEFAULT_SEND_DEADLINE_MS;
    this.#countOutcome = options.countOutcome ?? (() => {});
    // Sends may start during a window twice as long as pacing the batch needs (at least a
    // minute, for slow servers); then a send's deadline and the recording still fit. What has
    // not started by then goes back to the queue.
    const startWindowMs = Math.max(
      MIN_START_WINDOW_MS,
      Math.ceil((2 * this.#batchSize * 1000) / options.ratePerSecond),
    );
    this.#leaseMs = startWindowMs + this.#sendDeadlineMs + SETTLE_MARGIN_MS;
  }

  /** Adds a listener for every recorded outcome; returns its removal. */
  onSettled(listener: SettleListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at !== -1) this.#listeners.splice(at, 1);
    };
  }

  /** Polls: at once again after a full batch, else every idlePollMs. */
  start(): void {
    this.#stopping = false;
    this.#schedule(0);
  }

  /** Stops polling and waits for the round in progress (its unsent claims go back to the queue). */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#round;
  }

  /** One round at `now` (tests pass their own clock; the poll uses the real one). */
  async runOnce(now: Date = new Date()): Promise<DispatchRound> {
    const round: DispatchRound = {
      interrupted: 0,
      skipped: 0,
      claimed: 0,
      sent: 0,
      failed: 0,
      retrying: 0,
      released: 0,
      lost: 0,
    };
    round.interrupted = await this.#recording(async (trx) => {
      const settled = await failExpiredLeases(trx, now);
      return { result: settled.length, settled };
    });
    this.#count('failed', round.interrupted);
    const leaseUntil = new Date(now.getTime() + this.#leaseMs);
    // The template versions are read in the claiming transaction: if that fails, nothing is claimed.
    const { claimed, versions } = await this.#recording(async (trx) => {
      const { claimed, skipped } = await claimDueMessages(trx, now, this.#batchSize, leaseUntil);
      round.skipped = skipped.length;
      return { result: { claimed, versions: await templateVersionsOf(trx, claimed) }, settled: skipped };
    });
    round.claimed = claimed.length;
    this.#count('skipped', round.skipped);
    if (claimed.length === 0) return round;

    const started = performance.now();
    const clock = () => new Date(now.getTime() + (performance.now() - started));
    // The last moment a send may start: its deadline and the recording still fit in the lease.
    const canStart = () =>
      !this.#stopping && clock().getTime() + this.#sendDeadlineMs + SETTLE_MARGIN_MS <= leaseUntil.getTime();
    const pending = [...claimed];
    const worker = async () => {
      for (let claim = pending.shift(); claim !== undefined; claim = pending.shift()) {
        const outcome = await this.#attempt(claim, versions, canStart, clock);
        let settled: SettledMessage | undefined;
        try {
          settled = await this.#recording(async (trx) => {
            const row = await settleClaim(trx, claim, outcome);
            return { result: row, settled: row === undefined || outcome.status === 'released' ? [] : [row] };
          });
        } catch (error) {
          // The other workers carry on; this claim's lease will run out and mark it interrupted.
          this.#log?.error(
            { err: error, message_id: claim.id, outcome: outcome.status },
            'recording an email outcome failed',
          );
          round.lost += 1;
          continue;
        }
        if (settled === undefined) {
          round.lost += 1;
          this.#log?.warn(
            { message_id: claim.id, outcome: outcome.status },
            'email outcome not recorded: the claim had expired',
          );
        } else if (outcome.status === 'sent') {
          round.sent += 1;
          this.#count('sent', 1);
        } else if (outcome.status === 'failed') {
          round.failed += 1;
          this.#count('failed', 1);
        } else if (outcome.status === 'queued') {
          round.retrying += 1;
          this.#count('retrying', 1);
        } else round.released += 1;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, claimed.length) }, worker));
    return round;
  }

  #count(outcome: MailOutcome, messages: number): void {
    if (messages > 0) this.#countOutcome(outcome, messages);
  }

  async #attempt(
    claim: ClaimedMessage,
    versions: Map<string, TemplateParts>,
    canStart: () => boolean,
    clock: () => Date,
  ): Promise<SendOutcome> {
    if (!canStart()) return { status: 'released' };
    await this.#pacer.wait();
    if (!canStart()) return { status: 'released' };
    let version: TemplateParts | undefined;
    if (claim.template_id !== null) {
      version = versions.get(versionKey(claim.template_id, claim.template_version!));
      if (version === undefined) return { status: 'failed', error: 'template version not found' };
    }
    try {
      const message = composeMessage(this.#compose(), claim, version);
      const { transportMessageId } = await deadline(this.#transport.send(message), this.#sendDeadlineMs);
      return { status: 'sent', at: clock(), transport: this.#transport.kind, transportMessageId };
    } catch (thrown) {
      const error = asTransportError(thrown);
      this.#log?.warn(
        {
          message_id: claim.id,
          attempts: claim.attempts,
          permanent: error.permanent,
          response_code: error.responseCode,
          error: error.message,
        },
        'email not delivered',
      );
      if (error.permanent || claim.attempts >= MAX_ATTEMPTS) return { status: 'failed', error: error.message };
      return {
        status: 'queued',
        error: error.message,
        nextAttemptAt: new Date(clock().getTime() + retryDelayMs(claim.attempts)),
      };
    }
  }

  /**
   * One short transaction that records outcomes and tells the listeners in it. A failing
   * listener must not leave a sent message unrecorded (it would later count as interrupted):
   * the outcomes are then recorded again without listeners.
   */
  async #recording<T>(work: (trx: Kysely<Tables>) => Promise<{ result: T; settled: SettledMessage[] }>): Promise<T> {
    try {
      return await this.#write(async ({ trx }) => {
        const { result, settled } = await work(trx);
        if (settled.length > 0) {
          for (const listener of this.#listeners) {
            try {
              await listener(trx, settled);
            } catch (error) {
              throw new ListenerFailure(error);
            }
          }
        }
        return result;
      });
    } catch (error) {
      if (!(error instanceof ListenerFailure)) throw error;
      this.#log?.error({ err: error.listenerError }, 'email settle listener failed; outcomes recorded without it');
      return this.#write(async ({ trx }) => (await work(trx)).result);
    }
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => this.#tick(), delayMs);
    // A pending poll never keeps the process (or a test run) alive.
    this.#timer.unref();
  }

  #tick(): void {
    this.#round = this.runOnce()
      .then((round) => (round.claimed + round.skipped >= this.#batchSize ? 0 : this.#idlePollMs))
      .catch((error: unknown) => {
        this.#log?.error({ err: error }, 'email dispatch round failed');
        return Math.max(this.#idlePollMs, ERROR_POLL_MS);
      })
      .then((delayMs) => {
        this.#round = undefined;
        if (!this.#stopping) this.#schedule(delayMs);
      });
  }
}

export function createMailDispatcher(
  deps: Deps<'config' | 'log' | 'mail' | 'metrics' | 'signingKey' | 'write'>,
  options: Partial<Omit<MailDispatcherOptions, 'write' | 'compose'>> = {},
): MailDispatcher {
  const count = deps.metrics?.counter(
    'email_outbox_outcomes_total',
    'Outbox messages this instance settled, by outcome: sent (the transport took it), failed for good (refused ' +
      'permanently, attempts exhausted, interrupted mid-send), retrying (an attempt failed, queued again) or skipped ' +
      '(marketing mail to a suppressed address).',
    { outcome: MAIL_OUTCOMES },
  );
  return new MailDispatcher({
    write: deps.write,
    transport: deps.mail,
    compose: () => composeContext(deps),
    ratePerSecond: deps.config.mailRatePerSecond,
    log: deps.log,
    ...(count === undefined ? {} : { countOutcome: (outcome, messages) => count({ outcome }, messages) }),
    ...options,
  });
}

// By the mail transport: every area given the same platform finds the same dispatcher.
const dispatchers = new WeakMap<object, MailDispatcher>();

/**
 * The instance's dispatcher: the one its routes start when scheduled jobs run here. Other
 * modules hook in with `mailDispatcherFor(deps).onSettled(…)`; tests drive it with runOnce.
 */
export function mailDispatcherFor(
  deps: Deps<'config' | 'log' | 'mail' | 'metrics' | 'signingKey' | 'write'>,
): MailDispatcher {
  let dispatcher = dispatchers.get(deps.mail);
  if (dispatcher === undefined) {
    dispatcher = createMailDispatcher(deps);
    dispatchers.set(deps.mail, dispatcher);
  }
  return dispatcher;
}
