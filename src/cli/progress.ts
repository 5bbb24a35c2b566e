/** Where progress goes: stderr, or a test's stand-in. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  /** The count at which the work is done, when known: a terminal then shows a bar. */
  total?: number;
  /** Least time between two reports (a terminal's bar is redrawn more often than a log gets a line). */
  intervalMs?: number;
  now?: () => number;
}

const BAR_WIDTH = 30;
const TTY_INTERVAL_MS = 250;
const LINE_INTERVAL_MS = 5_000;

/**
 * Progress of a long command on stderr, never on stdout (which carries the command's output).
 * On a terminal one line redrawn in place: a bar when the total is known, a count otherwise.
 * Elsewhere (a log, a pipe) a plain line now and then, so a log is not flooded with redraws.
 */
export class Progress {
  #count = 0;
  #lastReport: number;
  readonly #started: number;
  readonly #tty: boolean;
  readonly #intervalMs: number;
  readonly #now: () => number;

  constructor(
    private readonly stream: ProgressStream,
    private readonly label: string,
    private readonly options: ProgressOptions = {},
  ) {
    this.#tty = stream.isTTY === true;
    this.#now = options.now ?? Date.now;
    this.#intervalMs = options.intervalMs ?? (this.#tty ? TTY_INTERVAL_MS : LINE_INTERVAL_MS);
    this.#started = this.#now();
    this.#lastReport = this.#started;
  }

  get count(): number {
    return this.#count;
  }

  add(n: number): void {
    this.#count += n;
    const now = this.#now();
    if (now - this.#lastReport < this.#intervalMs) return;
    this.#lastReport = now;
    this.#report(false);
  }

  /** The closing report: the count and the time taken, on a line of its own. */
  done(unit: string): void {
    if (this.#tty) this.#report(true);
    const seconds = ((this.#now() - this.#started) / 1_000).toFixed(1);
    this.stream.write(`${this.label}: ${this.#count} ${unit} in ${seconds} s\n`);
  }

  #report(closing: boolean): void {
    if (!this.#tty) {
      const of = this.options.total === undefined ? '' : ` of ${this.options.total}`;
      this.stream.write(`${this.label}: ${this.#count}${of} so far\n`);
      return;
    }
    // \r back to the line's start, \x1b[K erase what a longer line left there.
    const end = closing ? '\r\x1b[K' : '';
    this.stream.write(`\r${this.#bar()}\x1b[K${end}`);
  }

  #bar(): string {
    const total = this.options.total;
    if (total === undefined || total === 0) return `${this.label}: ${this.#count}`;
    const share = Math.min(1, this.#count / total);
    const filled = Math.round(share * BAR_WIDTH);
    const percent = String(Math.floor(share * 100)).padStart(3);
    return `${this.label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${percent}% ${this.#count}/${total}`;
  }
}
