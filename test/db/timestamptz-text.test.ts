import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz } from '../../src/db/timestamptz-text.js';

/** The driver's own parser (postgres-date): the reference every answer is held to. */
const reference = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => unknown;

/** A seeded generator: the same texts on every run, so a failure names a text that reproduces. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** A text as PostgreSQL writes a timestamptz (DateStyle ISO), with the given fraction and offset. */
function postgresText(random: () => number): string {
  const year = 1000 + Math.floor(random() * 9000);
  const month = 1 + Math.floor(random() * 12);
  const day = 1 + Math.floor(random() * 28);
  const clock = `${pad(Math.floor(random() * 24), 2)}:${pad(Math.floor(random() * 60), 2)}:${pad(Math.floor(random() * 60), 2)}`;
  const fractionDigits = Math.floor(random() * 7);
  const fraction = fractionDigits === 0 ? '' : `.${pad(Math.floor(random() * 10 ** fractionDigits), fractionDigits)}`;
  const offsets = ['+00', '-05', '+14', '+05:30', '-03:30', '+05:45', '-00:25:21', '+01:39:49', '-11:59:59'];
  const offset = offsets[Math.floor(random() * offsets.length)]!;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)} ${clock}${fraction}${offset}`;
}

describe('parseTimestamptz', () => {
  it("reads 20,000 texts in PostgreSQL's form exactly as the driver's parser does", () => {
    const random = generator(45);
    for (let n = 0; n < 20_000; n++) {
      const text = postgresText(random);
      const parsed = parseTimestamptz(text);
      expect(parsed, text).toBeInstanceOf(Date);
      expect((parsed as Date).getTime(), text).toBe((reference(text) as Date).getTime());
    }
  });

  it('takes the fraction as the driver does: its first three digits are the milliseconds, the rest dropped', () => {
    expect((parseTimestamptz('2026-11-29 23:35:25.9999+00') as Date).toISOString()).toBe('2026-11-29T23:35:25.999Z');
    expect((parseTimestamptz('2026-11-29 23:35:25.5+00') as Date).toISOString()).toBe('2026-11-29T23:35:25.500Z');
    expect((parseTimestamptz('2026-11-29 23:35:25.05+01') as Date).toISOString()).toBe('2026-11-29T22:35:25.050Z');
    expect((parseTimestamptz('2026-03-01 00:30:00-05:30') as Date).toISOString()).toBe('2026-03-01T06:00:00.000Z');
    expect((parseTimestamptz('2024-02-29 23:59:59.999999+00') as Date).toISOString()).toBe('2024-02-29T23:59:59.999Z');
  });

  it.each([
    ['infinity'],
    ['-infinity'],
    ['0044-03-15 12:00:00+00 BC'],
    ['0099-12-31 23:59:59+00'],
    ['0999-01-01 00:00:00+00'],
    ['12026-11-29 23:35:25+00'],
    ['2026-11-29 23:35:25.1234567+00'],
    ['2026-11-29 23:35:25'],
    ['2026-11-29T23:35:25Z'],
    ['2026-11-29 23:35:25+0'],
    ['2026-11-29 23:35:25+00:3'],
    ['2026-1x-29 23:35:25+00'],
  ])('leaves %s to the driver and answers what it answers', (text) => {
    const parsed = parseTimestamptz(text);
    const expected = reference(text);
    if (expected instanceof Date) expect((parsed as Date).getTime()).toEqual(expected.getTime());
    else expect(parsed).toEqual(expected);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('parseTimestamptz on what PostgreSQL sends', () => {
  it('reads the instants a server writes in any session time zone, microseconds and all', async () => {
    const client = new pg.Client({
      connectionString: process.env.TEST_DATABASE_URL,
      types: { getTypeParser: () => (text: string) => text },
    });
    await client.connect();
    try {
      for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Kiritimati', 'Africa/Monrovia']) {
        await client.query(`SET TIME ZONE '${zone}'`);
        // Monrovia's 1970 offset (-00:44:30) has seconds; 1000-01-01 is the fast path's first year.
        const { rows } = await client.query<{ text: string; epoch_ms: string }>(
          `SELECT at::text AS text, floor(extract(epoch FROM at) * 1000)::bigint::text AS epoch_ms
             FROM (VALUES (timestamptz '2026-11-29 23:35:25.123456+00'), (timestamptz '1970-01-01 00:00:00+00'),
                          (timestamptz '1000-01-01 12:00:00.5+00'), (timestamptz '9999-12-31 23:59:59.999999+00'),
                          (now())) AS instants (at)`,
        );
        for (const row of rows) {
          expect((parseTimestamptz(row.text) as Date).getTime(), `${zone}: ${row.text}`).toBe(Number(row.epoch_ms));
        }
      }
    } finally {
      await client.end();
    }
  });
});
