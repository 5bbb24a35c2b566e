/**
 * Everything the run made outside itself (child processes, temp directories, a database) is
 * registered here as it is made, and undone in reverse order whether the run ends normally,
 * fails, or is interrupted: a failed CI run must not leave a service or a database behind.
 */
type Undo = () => Promise<void> | void;

const undos: { label: string; undo: Undo }[] = [];
let running: Promise<void> | undefined;

export function onCleanup(label: string, undo: Undo): void {
  undos.push({ label, undo });
}

/** Runs every registered undo once, newest first; a failing one is reported and the rest still run. */
export function cleanUp(): Promise<void> {
  running ??= (async () => {
    while (undos.length > 0) {
      const { label, undo } = undos.pop()!;
      try {
        await undo();
      } catch (error) {
        process.stderr.write(`cleanup: ${label} failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  })();
  return running;
}

/**
 * Ctrl-C or a CI runner's SIGTERM: clean up, then exit with the conventional signal status. The
 * handlers stay installed: the same signal often arrives twice (the terminal signals the whole
 * process group, and tsx relays it again), and a second one must not end the run mid-clean-up.
 */
export function cleanUpOnSignals(): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.on(signal, () => {
      if (running === undefined) process.stderr.write(`\n${signal}: cleaning up…\n`);
      void cleanUp().finally(() => process.exit(code));
    });
  }
}

/** Whether a process of this machine still runs (EPERM: it does, under another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
