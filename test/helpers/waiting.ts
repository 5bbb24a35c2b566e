/**
 * Waits for the event a test expects instead of sleeping a guessed time: `condition` is polled
 * until it holds, and the wait fails, naming `what`, once `timeoutMs` has passed without it.
 * (`eventually` in app.ts does the same for a check that throws until it passes.)
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string),
  { timeoutMs = 5_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`waited ${timeoutMs} ms for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Until the clock reads a later millisecond than `instant`: a row written from now on gets a
 * later timestamp than one written at `instant`, so the two sort, and split by bounds, apart.
 */
export function clockPast(instant: Date): Promise<void> {
  return waitFor(() => Date.now() > instant.getTime(), `the clock to pass ${instant.toISOString()}`, { intervalMs: 1 });
}
