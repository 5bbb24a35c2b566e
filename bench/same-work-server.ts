import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { ACHIEVEMENT_UPDATE, AUDIT_COUNT, AUDIT_PAGE, type FloorStatement, USERS_PAGE } from './floor-statements.js';
import { ADMIN_USER, benchUser } from './seed/fixtures.js';

/**
 * The same-work floor of the database scenarios: the thinnest server that does their database
 * work. node:http and pg, no framework, no token check, no validation: for each route exactly the
 * statements the service sends for that answer (`floor-statements.ts`, captured from the
 * statement log) and named as it names them, the answer written with JSON.stringify. Run in its own process by
 * `floors.ts`; arguments: port, database URL.
 *
 * Sessions as the service has them with its default DATABASE_POOL_SIZE of 10
 * (src/lib/split-pool.ts `poolBudget`): 6 for reads, 4 for writes, opened before it answers.
 */
const port = Number(process.argv[2]);
const connectionString = process.argv[3]!;
const READ_SESSIONS = 6;
const WRITE_SESSIONS = 4;

const openPool = (size: number) => {
  const pool = new pg.Pool({ connectionString, max: size, min: size, application_name: 'bench same-work floor' });
  pool.on('error', () => {});
  return pool;
};
const reads = openPool(READ_SESSIONS);
const writes = openPool(WRITE_SESSIONS);
/** The service records the staff member who made the change; the floor's requests are all the owner's. */
const ACTOR_ID = benchUser(ADMIN_USER).id;
const ACHIEVEMENT_PATH = /^\/v1\/admin\/catalog\/achievements\/([0-9a-f-]{36})$/;

function send(response: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** pg's query config: a statement with a name is parsed and planned once per session, as the service's. */
const asSent = ({ name, sql }: FloorStatement, values: unknown[]) => ({ name, text: sql, values });

const pageOf = (url: URL) => {
  const page = Number(url.searchParams.get('page') ?? 1);
  const perPage = Number(url.searchParams.get('per_page') ?? 25);
  return { page, perPage, offset: (page - 1) * perPage };
};

async function usersPage(url: URL): Promise<unknown> {
  const { page, perPage, offset } = pageOf(url);
  const { rows } = await reads.query<{ total: number }>(asSent(USERS_PAGE, [perPage, offset]));
  const total = rows[0]?.total ?? 0;
  return { data: rows.map(({ total: _total, ...user }) => user), meta: { page, per_page: perPage, total } };
}

/** `action=users.*` as the service turns it into a LIKE pattern and the prefix before the first dot. */
async function auditPage(url: URL): Promise<unknown> {
  const { page, perPage, offset } = pageOf(url);
  const action = url.searchParams.get('action') ?? '';
  const pattern = action.replace(/\*$/, '%');
  const [{ rows }, count] = await Promise.all([
    reads.query(asSent(AUDIT_PAGE, [pattern, action.split('.')[0], perPage, offset])),
    reads.query<{ n: number }>(asSent(AUDIT_COUNT, [pattern])),
  ]);
  return { data: rows, meta: { page, per_page: perPage, total: count.rows[0]?.n ?? 0 } };
}

async function updateAchievement(request: IncomingMessage, id: string): Promise<number> {
  const { reward_credits: credits } = JSON.parse(await readBody(request)) as { reward_credits: number };
  const { rows } = await writes.query<{ found: boolean }>(
    asSent(ACHIEVEMENT_UPDATE, [
      id,
      credits,
      ACTOR_ID,
      new Date(),
      credits,
      ACTOR_ID,
      'catalog.achievement.update',
      'achievement',
      id,
      randomUUID(),
      request.socket.remoteAddress ?? null,
      request.headers['user-agent'] ?? null,
      null,
    ]),
  );
  return rows[0]?.found === true ? 204 : 404;
}

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://floor');
  if (request.method === 'GET' && url.pathname === '/v1/admin/users') return send(response, 200, await usersPage(url));
  if (request.method === 'GET' && url.pathname === '/v1/admin/audit') return send(response, 200, await auditPage(url));
  const achievement = ACHIEVEMENT_PATH.exec(url.pathname);
  if (request.method === 'PATCH' && achievement !== null)
    return send(response, await updateAchievement(request, achievement[1]!));
  return send(response, 404, { error: 'not_found' });
}

async function main(): Promise<void> {
  // Every session opened first, as the service's warm() does, so no measured request waits on a connect.
  const take = (pool: pg.Pool, size: number) => Promise.all(Array.from({ length: size }, () => pool.connect()));
  for (const client of [...(await take(reads, READ_SESSIONS)), ...(await take(writes, WRITE_SESSIONS))])
    client.release();
  createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      if (!response.headersSent) send(response, 500, { error: 'floor_failed' });
    });
  }).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
}

void main();
