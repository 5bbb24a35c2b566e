import { describe, expect, it } from 'vitest';
import { roundsDuring, type VacuumRound } from '../../bench/soak-vacuum.js';

const round = (startedEpochMs: number, seconds: number, vacuumed: string[]): VacuumRound => ({
  atSecond: 0,
  startedEpochMs,
  seconds,
  vacuumed,
  analyzed: [],
});

describe("vacuum rounds beside the soak's seconds", () => {
  it('finds the rounds under way at some moment of a span, and only those', () => {
    const rounds = [round(10_000, 0.5, ['users']), round(70_000, 2, ['audit_log']), round(130_000, 0.1, [])];
    expect(roundsDuring(rounds, 9_000, 10_100).map((r) => r.vacuumed)).toEqual([['users']]);
    expect(roundsDuring(rounds, 10_400, 11_000).map((r) => r.vacuumed)).toEqual([['users']]);
    expect(roundsDuring(rounds, 10_501, 69_999)).toEqual([]);
    expect(roundsDuring(rounds, 71_000, 71_500).map((r) => r.vacuumed)).toEqual([['audit_log']]);
    expect(roundsDuring(rounds, 0, 200_000)).toHaveLength(3);
  });
});
