import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../../src/db/database.js';
import { PANIC_OFF } from '../../../src/kernel/maintenance.js';
import { Metrics, SCRAPE_QUERY_TIMEOUT_MS } from '../../../src/kernel/metrics/metrics.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { captureLog } from '../../helpers/captured-log.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { closedPort } from '../../helpers/ports.js';
import { waitFor } from '../../helpers/waiting.js';
import { startTcpProxy, type TcpProxy } from '../../reliability/tcp-proxy.js';
import { parseExposition, samplesOf, sampleValue, scrape } from './scrape.js';

/**
 * Gauges the areas read with a query at scrape time (Metrics.queryAtScrape): a query that fails
 * or does not answer leaves its gauge out of that scrape, never the scrape itself, and is logged
 * once per failing spell; one query runs at a time however often Prometheus scrapes.
 */

describe('a gauge read with a query at scrape time', () => {
  const log = captureLog();
  const metrics = new Metrics({ maintenance: () => PANIC_OFF, databasePools: () => [] }, log.log);
  let answer: () => Promise<Partial<Record<'a' | 'b', number>>> = () =>
    Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
  let queries = 0;
  metrics.queryAtScrape('test_waiting', 'Waiting things.', 'state', ['a', 'b'], () => {
    queries += 1;
    return answer();
  });
  metrics.readAtScrape('test_open', 'Open things.', () => 7);
  const collect = async () => parseExposition(await metrics.registry.metrics());
  const lines = (message: string) =>
    log
      .lines()
      .map((line) => JSON.parse(line) as { msg: string; metric?: string })
      .filter((line) => line.msg === message);

  it('a failing query: the scrape answers without the gauge, the failure logged once', async () => {
    for (let i = 0; i < 3; i++) {
      const scraped = await collect();
      expect(samplesOf(scraped, 'test_waiting')).toEqual([]);
      expect(sampleValue(scraped, 'test_open')).toBe(7);
    }
    expect(queries).toBe(3);
    expect(lines('metric left out of scrapes: its query failed')).toMatchObject([{ metric: 'test_waiting' }]);
  });

  it('reading again: every declared value (0 when not counted), none other, and one line saying so', async () => {
    answer = async () => ({ a: 3, c: 9 }) as Partial<Record<'a' | 'b', number>>;
    const scraped = await collect();
    expect(samplesOf(scraped, 'test_waiting').map(({ labels, value }) => [labels.state, value])).toEqual([
      ['a', 3],
      ['b', 0],
    ]);
    await collect();
    expect(lines('metric read again')).toMatchObject([{ metric: 'test_waiting' }]);
  });

  it('a query that does not answer: the scrape waits SCRAPE_QUERY_TIMEOUT_MS at most, and scrapes meanwhile share it', async () => {
    let release = () => {};
    answer = () =>
      new Promise((resolve) => {
        release = () => resolve({ a: 1, b: 2 });
      });
    const before = queries;
    const started = Date.now();
    const [first, second] = await Promise.all([collect(), collect()]);
    const third = await collect();
    expect(Date.now() - started).toBeLessThan(3 * SCRAPE_QUERY_TIMEOUT_MS + 1_000);
    for (const scraped of [first, second, third]) {
      expect(samplesOf(scraped, 'test_waiting')).toEqual([]);
      expect(sampleValue(scraped, 'test_open')).toBe(7);
    }
    // One query for the three scrapes: a slow database is not sent one more per scrape.
    expect(queries - before).toBe(1);
    release();
    await waitFor(
      async () => sampleValue(await collect(), 'test_waiting', { state: 'b' }) === 2,
      () => 'the gauge back once its query answered',
    );
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('the database away (PostgreSQL through a proxy)', () => {
  let testDatabase: TestDatabase;
  let proxy: TcpProxy;
  let database: Database;
  let t: TestApp;
  let metricsPort: number;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    const url = new URL(testDatabase.url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    database = openPostgres({
      connectionString: proxy.via(testDatabase.url!),
      poolMax: 5,
      statementTimeoutMs: 1_000,
      connectTimeoutMs: 1_000,
    });
    metricsPort = await closedPort();
    t = await startTestApp({ database, config: { metricsPort } });
  });
  afterAll(async () => {
    proxy?.pass();
    await t?.close();
    await database?.close();
    await proxy?.close();
    await testDatabase?.drop();
  });

  it('a database that never answers: the scrape answers in bounded time without the queried gauges; back with the database', async () => {
    const queried = ['email_outbox_depth', 'email_campaign_messages'];
    const up = await scrape(metricsPort);
    for (const name of queried) expect(samplesOf(up, name).length, name).toBeGreaterThan(0);

    proxy.blackhole();
    proxy.cut();
    const started = Date.now();
    const away = await scrape(metricsPort);
    expect(away.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(SCRAPE_QUERY_TIMEOUT_MS + 1_500);
    for (const name of queried) expect(samplesOf(away, name), name).toEqual([]);
    // What the instance knows itself is still there.
    expect(sampleValue(away, 'http_requests_in_flight')).toBe(0);
    expect(samplesOf(away, 'database_pool_connections_in_use').length).toBe(2);

    proxy.pass();
    await waitFor(
      async () => {
        const back = await scrape(metricsPort);
        return queried.every((name) => samplesOf(back, name).length > 0);
      },
      () => 'the queried gauges back with the database',
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(sampleValue(await scrape(metricsPort), 'email_outbox_depth', { state: 'due' })).toBe(0);
  });
});
