import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { sessionsText, startActivityProbe, summarizeActivity } from '../../bench/activity-probe.js';

describe("the soak's activity probe", () => {
  it('averages active sessions per pool and ranks their waits', () => {
    const reads = { pool: 'platform-api reads', type: null, event: null };
    const walWrite = { pool: 'platform-api writes', type: 'LWLock', event: 'WALWrite' };
    expect(summarizeActivity([[reads, reads, walWrite], [reads, walWrite], []])).toEqual({
      samples: 3,
      active: { 'platform-api reads': 1, 'platform-api writes': 0.7 },
      waits: [
        ['CPU', 60],
        ['LWLock:WALWrite', 40],
      ],
    });
    expect(summarizeActivity([])).toEqual({ samples: 0, active: {}, waits: [] });
    expect(sessionsText(summarizeActivity([[reads, reads, walWrite], [reads, walWrite], []]))).toBe(
      'reads 1, writes 0.7 (CPU 60 %, LWLock:WALWrite 40 %)',
    );
    expect(sessionsText(summarizeActivity([[], []]))).toBe('none');
    expect(sessionsText(summarizeActivity([]))).toBe('no sample');
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    "samples the service's sessions on a real server, and no one else's",
    async () => {
      const connect = async (name: string) => {
        const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL, application_name: name });
        await client.connect();
        return client;
      };
      // A name of its own: other test files may have service sessions on this database meanwhile.
      const name = `platform-api probe test ${process.pid}`;
      const [service, stranger] = await Promise.all([connect(name), connect('someone else')]);
      const probe = await startActivityProbe(process.env.TEST_DATABASE_URL!);
      try {
        probe.take();
        await Promise.all([service.query('SELECT pg_sleep(0.6)'), stranger.query('SELECT pg_sleep(0.6)')]);
        const second = probe.take();
        expect(second.samples).toBeGreaterThanOrEqual(3);
        expect(second.active[name]).toBeGreaterThan(0.5);
        expect(second.active).not.toHaveProperty('someone else');
        expect(second.active).not.toHaveProperty('soak activity probe');
        expect(second.waits).toContainEqual(['Timeout:PgSleep', expect.any(Number)]);
      } finally {
        await probe.stop();
        await Promise.all([service.end(), stranger.end()]);
      }
    },
  );
});
