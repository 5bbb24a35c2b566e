import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_NAMED_PER_CONNECTION, OwnCommitNotices, pooledClientClass } from '../../src/lib/pg-client.js';

/** A NOTICE as migration 0041's triggers raise it: the channel in the message, the payload in the detail. */
const raiseOwnNotice = (payload: string) =>
  `DO $$ BEGIN RAISE NOTICE 'test_channel' USING ERRCODE = 'PA999', DETAIL = '${payload}'; END $$`;
/** Stands for migration 0041's setting: what the session was asked shows in its application_name. */
const ASK = "SET application_name = 'asked for own notices'";

describe.runIf(process.env.TEST_DATABASE_URL)('pooledClientClass', () => {
  const clients: pg.Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.end().catch(() => {})));
  });

  async function connect(config: pg.ClientConfig = {}, namedStatements = true) {
    const notices = new OwnCommitNotices();
    const heard: string[] = [];
    const Client = pooledClientClass({
      ownCommitNotices: notices,
      ownNoticeCode: 'PA999',
      askForOwnNotices: ASK,
      namedStatements,
    });
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL, ...config });
    clients.push(client);
    await client.connect();
    return { client, notices, heard, listen: () => notices.add('test_channel', (payload) => heard.push(payload)) };
  }

  it('hands on a notice of its own change when its statement ends out of a transaction, before resolving', async () => {
    const { client, heard, listen } = await connect();
    listen();
    await client.query(raiseOwnNotice('alone'));
    expect(heard).toEqual(['alone']);
  });

  it("holds a transaction's notices until its commit or rollback has answered", async () => {
    const { client, heard, listen } = await connect();
    listen();
    await client.query('BEGIN');
    await client.query(raiseOwnNotice('committed'));
    await client.query('SELECT 1');
    expect(heard).toEqual([]);
    await client.query('COMMIT');
    expect(heard).toEqual(['committed']);

    await client.query('BEGIN');
    await client.query(raiseOwnNotice('failed'));
    await expect(client.query('SELECT 1 / 0')).rejects.toMatchObject({ code: '22012' });
    expect(heard).toEqual(['committed']);
    await client.query('ROLLBACK');
    expect(heard).toEqual(['committed', 'failed']);
  });

  it('asks its session for its own notices once, outside a transaction, and only while someone listens', async () => {
    const { client, listen } = await connect();
    const applicationName = async () =>
      (await client.query<{ name: string }>("SELECT current_setting('application_name') AS name")).rows[0]!.name;
    expect(await applicationName()).not.toBe('asked for own notices');
    await client.query('BEGIN');
    listen();
    expect(await applicationName()).not.toBe('asked for own notices');
    await client.query('COMMIT');
    // Asked ahead of the first query sent out of the transaction.
    expect(await applicationName()).toBe('asked for own notices');
    await client.query("SET application_name = 'changed since'");
    expect(await applicationName()).toBe('changed since');
  });

  it('runs a query marked as prepared as a named statement of its session', async () => {
    const { client } = await connect();
    const marked = '/* prepared: probe_statement */ SELECT $1::int + 1 AS n';
    expect((await client.query<{ n: number }>(marked, [1])).rows).toEqual([{ n: 2 }]);
    expect((await client.query<{ n: number }>(marked, [41])).rows).toEqual([{ n: 42 }]);
    const { rows } = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
    expect(rows.map((row) => row.name)).toContain('probe_statement');
  });

  const preparedNames = async (client: pg.Client) =>
    (await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map(
      (row) => row.name,
    );

  it('runs each text of a query prepared by shape as a named statement of its own, up to a bound per session', async () => {
    const { client } = await connect();
    const shaped = (filter: string) => `/* prepared by shape: probe_list */ SELECT $1::int AS n WHERE ${filter}`;
    for (const value of [1, 2]) {
      expect((await client.query(shaped('true'), [value])).rows).toEqual([{ n: value }]);
      expect((await client.query(shaped('$1 > 0'), [value])).rows).toEqual([{ n: value }]);
    }
    const names = await preparedNames(client);
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^probe_list_[0-9a-f]{12}$/);

    // Past the bound, a new text runs unnamed and answers all the same.
    for (let n = names.length; n < MAX_NAMED_PER_CONNECTION + 3; n += 1)
      expect((await client.query(shaped(`${n} = ${n}`), [n])).rows).toEqual([{ n }]);
    expect(await preparedNames(client)).toHaveLength(MAX_NAMED_PER_CONNECTION);
  });

  it('runs marked queries unnamed when named statements are off (behind a transaction pooler)', async () => {
    const { client } = await connect({}, false);
    await client.query('/* prepared: probe_statement */ SELECT 1');
    await client.query('/* prepared by shape: probe_list */ SELECT 1');
    expect(await preparedNames(client)).toEqual([]);
  });

  it('ends its connection at once when an answer is overdue, without waiting for the statement', async () => {
    // pg's end() destroys the socket while a query is under way: were it to wait for the server,
    // it would wait for the five seconds of sleep, and a hung server would hold the client forever.
    const { client } = await connect({ query_timeout: 200 });
    const ended = new Promise<number>((resolve) => client.once('end', () => resolve(Date.now())));
    await expect(client.query('SELECT pg_sleep(5)')).rejects.toThrow('Query read timeout');
    const overdueAt = Date.now();
    expect((await ended) - overdueAt).toBeLessThan(1_000);
  });
});
