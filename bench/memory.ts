import { readFileSync } from 'node:fs';

const SAMPLE_EVERY_MS = 200;

export interface MemoryReading {
  /** Resident set now. */
  rssMb: number;
  /** The kernel's high-water mark of the resident set since the process started (VmHWM). */
  peakMb: number;
}

/** Linux only (/proc); undefined once the process is gone. */
export function readMemory(pid: number): MemoryReading | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMb: kilobytes('VmRSS') / 1024, peakMb: kilobytes('VmHWM') / 1024 };
}

/**
 * Polls a process's resident set so each scenario can report the most it used while it ran.
 * The whole-run peak comes from VmHWM, which the kernel keeps exactly; polling only serves the
 * per-scenario windows, which VmHWM cannot split.
 */
export class RssMonitor {
  readonly #pid: number;
  readonly #timer: NodeJS.Timeout;
  #windowPeak = 0;
  #lastPeakMb = 0;

  constructor(pid: number) {
    this.#pid = pid;
    this.#timer = setInterval(() => this.#sample(), SAMPLE_EVERY_MS);
    this.#timer.unref();
    this.#sample();
  }

  /** Starts a window; the returned function ends it and answers the window's peak in MB. */
  window(): () => number {
    this.#sample();
    this.#windowPeak = readMemory(this.#pid)?.rssMb ?? 0;
    return () => {
      this.#sample();
      return this.#windowPeak;
    };
  }

  /** The process's peak resident set so far (VmHWM; the last reading once it has exited). */
  peakMb(): number {
    this.#sample();
    return this.#lastPeakMb;
  }

  stop(): void {
    this.#sample();
    clearInterval(this.#timer);
  }

  #sample(): void {
    const reading = readMemory(this.#pid);
    if (reading === undefined) return;
    this.#windowPeak = Math.max(this.#windowPeak, reading.rssMb);
    this.#lastPeakMb = Math.max(this.#lastPeakMb, reading.peakMb);
  }
}
