import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pressureContrast, someTotalUs, startPressureProbe, stealTotalMs } from '../../bench/pressure-probe.js';

const pressure = (someUs: number) =>
  `some avg10=1.00 avg60=0.50 avg300=0.25 total=${someUs}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=7\n`;
const stat = (stealTicks: number) =>
  `cpu  85739 0 26854 197643 1810 0 4893 ${stealTicks} 0 0\ncpu0 44710 0 11857 98643 595 0 2417 30 0 0\n`;

function fakeProc(
  cpuUs: number,
  ioUs: number,
  stealTicks: number,
  dir = mkdtempSync(join(tmpdir(), 'pa-proc-')),
): string {
  mkdirSync(join(dir, 'pressure'), { recursive: true });
  writeFileSync(join(dir, 'pressure/cpu'), pressure(cpuUs));
  writeFileSync(join(dir, 'pressure/io'), pressure(ioUs));
  writeFileSync(join(dir, 'stat'), stat(stealTicks));
  return dir;
}

describe("the soak's pressure probe", () => {
  it('reads the "some" total and the steal column', () => {
    expect(someTotalUs(pressure(229913685))).toBe(229913685);
    expect(stealTotalMs(stat(65))).toBe(650);
    expect(() => someTotalUs('full avg10=0.00 total=3')).toThrow(/some/);
  });

  it("turns the totals' growth over a second into shares of it", async () => {
    const dir = fakeProc(1_000_000, 5_000_000, 100);
    const probe = startPressureProbe(dir)!;
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Within 200–250 ms: 50 ms of CPU pressure, all of it (capped) for I/O, 3 ticks of steal.
    fakeProc(1_050_000, 6_000_000, 103, dir);
    const second = probe.take();
    expect(second.cpuPressurePct).toBeGreaterThan(15);
    expect(second.cpuPressurePct).toBeLessThanOrEqual(25);
    expect(second.ioPressurePct).toBe(100);
    expect(second.stealMs).toBe(30);
    // Nothing grew since: nothing to report.
    expect(probe.take()).toEqual({ cpuPressurePct: 0, ioPressurePct: 0, stealMs: 0 });
  });

  it('is absent where the kernel keeps no pressure files, so the soak runs without it', () => {
    expect(startPressureProbe(mkdtempSync(join(tmpdir(), 'pa-noproc-')))).toBeUndefined();
  });

  it.runIf(existsSync('/proc/pressure/cpu') && existsSync('/proc/pressure/io'))(
    "reads this machine's own files when it has them",
    () => {
      const second = startPressureProbe()!.take();
      expect(second.cpuPressurePct).toBeGreaterThanOrEqual(0);
      expect(second.ioPressurePct).toBeGreaterThanOrEqual(0);
      expect(second.stealMs).toBeGreaterThanOrEqual(0);
    },
  );
});

describe("pressureContrast: the slowest seconds' waits against a typical second's", () => {
  const second = (p99Ms: number, cpuPressurePct: number, ioPressurePct: number) => ({
    p99Ms,
    generator: { cpuPressurePct, ioPressurePct, stealMs: 0 },
  });

  it('takes medians over all seconds and over the slowest by p99', () => {
    const seconds = [
      second(10, 5, 1),
      second(12, 6, 2),
      second(11, 4, 1),
      second(300, 60, 30),
      second(200, 40, 50),
      second(9, 5, 0),
    ];
    expect(pressureContrast(seconds, 2)).toEqual({
      typical: { cpuPressurePct: 6, ioPressurePct: 2 },
      slowest: { cpuPressurePct: 60, ioPressurePct: 50, seconds: 2 },
    });
  });

  it('leaves out seconds without readings, and is null with none', () => {
    expect(
      pressureContrast([{ p99Ms: 500, generator: null }, { p99Ms: 400, generator: {} }, second(10, 3, 2)], 1),
    ).toEqual({
      typical: { cpuPressurePct: 3, ioPressurePct: 2 },
      slowest: { cpuPressurePct: 3, ioPressurePct: 2, seconds: 1 },
    });
    expect(pressureContrast([{ p99Ms: 500, generator: null }])).toBeNull();
  });
});
