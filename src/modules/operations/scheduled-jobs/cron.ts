import { Cron } from 'croner';

/** Five fields (minute hour day-of-month month day-of-week), read in UTC on every instance. */
const CRON_OPTIONS = { mode: '5-part', timezone: 'Etc/UTC' } as const;

/** Why a cron expression cannot be used, or undefined when it can. */
export function cronProblem(expression: string): string | undefined {
  try {
    new Cron(expression, CRON_OPTIONS);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The first occurrence strictly after `after`, or null when the expression never fires again.
 * Throws on an invalid expression (check with cronProblem first).
 */
export function nextRunAfter(expression: string, after: Date): Date | null {
  return new Cron(expression, CRON_OPTIONS).nextRun(after);
}
