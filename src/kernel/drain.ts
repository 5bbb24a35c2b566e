/**
 * Whether this instance is going away (SIGTERM received). Set once, never cleared: from then on
 * `/health/ready` answers 503 `draining` so load balancers stop sending new work here, while the
 * work already here finishes (src/kernel/shutdown.ts).
 */
export class DrainState {
  #since: Date | undefined;

  get draining(): boolean {
    return this.#since !== undefined;
  }

  /** When the drain began; undefined while serving normally. */
  get since(): Date | undefined {
    return this.#since;
  }

  begin(now: Date = new Date()): void {
    this.#since ??= now;
  }
}
