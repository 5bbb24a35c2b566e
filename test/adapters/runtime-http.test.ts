import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpRuntimeClient, type HttpRuntimeClientOptions } from '../../src/adapters/runtime/http.js';
import { RuntimeRefusedError, RuntimeUnavailableError } from '../../src/adapters/runtime/index.js';
import { RuntimeSimulator } from '../../src/runtime-sim/simulator.js';
import { captureLog } from '../helpers/captured-log.js';

/**
 * The HTTP runtime client against the runtime simulator on its own loopback port (and, for
 * answers the simulator never gives, a small real HTTP server): every method, every error
 * mapping, retries, timeouts, and the API key kept out of logs and error messages.
 */

const KEY = 'runtime-client-secret-key-3b7d90';
const captured = captureLog();
/** Every error the client threw in this file; none may carry the key. */
const thrown: unknown[] = [];

let sim: RuntimeSimulator;
let base = '';
const clients: HttpRuntimeClient[] = [];

function makeClient(overrides: Partial<HttpRuntimeClientOptions> = {}): HttpRuntimeClient {
  const client = new HttpRuntimeClient({
    baseUrl: base,
    apiKey: KEY,
    connectTimeoutMs: 500,
    timeoutMs: 1_000,
    log: captured.log,
    ...overrides,
  });
  clients.push(client);
  return client;
}

/** The call's failure (recorded for the key check); fails the test if it succeeds. */
async function failureOf(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    thrown.push(error);
    return error as Error;
  }
  throw new Error('the call succeeded');
}

/** Parsed log lines logged since `mark` (a line count taken before the call). */
function logSince(mark: number): Array<Record<string, unknown>> {
  return captured
    .lines()
    .slice(mark)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  // Pulls settle only when a test settles them (settlePulls): a delay that can pass between two
  // calls on a loaded machine made "still pulling" a race.
  sim = new RuntimeSimulator({ apiKey: KEY, pullDelayMs: 600_000 });
  base = await sim.listen('127.0.0.1', 0);
});
afterEach(() => {
  sim.failNextRequests(0);
  sim.setLatency(0);
  sim.clearRequestLog();
});
afterAll(async () => {
  for (const client of clients) client.close();
  await sim.close();
});

describe('HttpRuntimeClient happy paths', () => {
  it('lists nodes, filtered by pool and status through the query', async () => {
    const client = makeClient();
    expect((await client.listNodes()).map((node) => node.id)).toEqual(['node-1', 'node-2']);
    expect(await client.listNodes({ pool_id: 'default', status: 'offline' })).toEqual([]);
    const [first] = await client.listNodes({ pool_id: 'default', status: 'ready' });
    expect(first).toEqual(sim.node('node-1'));
    expect(sim.requestLog()).toEqual([
      'GET /v1/nodes',
      'GET /v1/nodes?pool_id=default&status=offline',
      'GET /v1/nodes?pool_id=default&status=ready',
    ]);
  });

  it('reads a node, its id URL-encoded (slashes, spaces, dots, "..")', async () => {
    const client = makeClient();
    for (const id of ['rack 7/slot.3', '..', 'ü-node?x=1#y']) {
      sim.addNode({ id, pool_id: null, slots: 2 });
      expect(await client.getNode(id)).toEqual(sim.node(id));
    }
  });

  it('pulls an image: ok, and the node shows it pulling until it settles', async () => {
    const client = makeClient();
    sim.addNode({ id: 'pull-target' });
    expect(await client.pullImage('pull-target', 'games/chess:2')).toEqual({ ok: true });
    expect(sim.node('pull-target')!.images).toEqual([
      expect.objectContaining({ image: 'games/chess:2', status: 'pulling' }),
    ]);
    sim.settlePulls();
    expect((await client.getNode('pull-target')).images).toEqual([
      expect.objectContaining({ image: 'games/chess:2', status: 'ready', error: null }),
    ]);
  });

  it('drains and undrains a node', async () => {
    const client = makeClient();
    sim.addNode({ id: 'drain-target' });
    expect(await client.setNodeDraining('drain-target', true)).toMatchObject({
      id: 'drain-target',
      status: 'draining',
    });
    expect(sim.node('drain-target')!.status).toBe('draining');
    expect(await client.setNodeDraining('drain-target', false)).toMatchObject({ status: 'ready' });
    expect(sim.requestLog()).toEqual(['POST /v1/nodes/drain-target/drain', 'POST /v1/nodes/drain-target/undrain']);
  });

  it('assigns a node to a pool and out of every pool', async () => {
    const client = makeClient();
    sim.addNode({ id: 'assign-target' });
    expect(await client.assignNodePool('assign-target', 'default')).toMatchObject({ pool_id: 'default' });
    expect(sim.pool('default')!.node_ids).toContain('assign-target');
    expect(await client.assignNodePool('assign-target', null)).toMatchObject({ pool_id: null });
    expect(sim.node('assign-target')!.pool_id).toBeNull();
  });

  it('creates, reads, lists and updates pools', async () => {
    const client = makeClient();
    const created = await client.createPool({
      id: 'client-pool',
      name: 'Client pool',
      description: 'made by the client',
    });
    expect(created).toEqual({
      id: 'client-pool',
      name: 'Client pool',
      description: 'made by the client',
      node_ids: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(sim.pool('client-pool')).toEqual(created);
    expect(await client.getPool('client-pool')).toEqual(created);
    expect((await client.listPools()).map((pool) => pool.id)).toEqual(
      expect.arrayContaining(['client-pool', 'default']),
    );
    const updated = await client.updatePool('client-pool', { name: 'Renamed', description: null });
    expect(updated).toMatchObject({ id: 'client-pool', name: 'Renamed', description: null });
    expect(sim.pool('client-pool')).toMatchObject({ name: 'Renamed', description: null });
  });

  it('creates a session (a repeat answers the same one), reads it and stops it', async () => {
    const client = makeClient();
    const input = {
      id: 'client-session-1',
      user_id: 'user-9',
      game: { id: 3, slug: 'tetris' },
      pool_id: 'default',
      limits: { max_fps: 30 },
    };
    const created = await client.createSession(input);
    expect(created).toEqual({
      id: input.id,
      node_id: expect.stringMatching(/^node-[12]$/),
      pool_id: 'default',
      play_url: `${base}/play/${input.id}`,
      member_token: sim.session(input.id)!.member_token,
    });
    expect(sim.session(input.id)).toMatchObject({
      limits: { max_fps: 30 },
      game: { id: 3, slug: 'tetris' },
      user_id: 'user-9',
    });
    expect(await client.createSession(input)).toEqual(created);

    expect(await client.getSession(input.id)).toMatchObject({
      id: input.id,
      status: 'running',
      node_id: created.node_id,
      ended_at: null,
    });
    const stopped = await client.stopSession(input.id);
    expect(stopped).toMatchObject({ id: input.id, status: 'stopped', play_url: null, ended_at: expect.any(String) });
    expect(sim.session(input.id)!.status).toBe('stopped');
  });
});

describe('HttpRuntimeClient error mapping', () => {
  it.each([
    {
      name: 'getNode 404',
      call: (c: HttpRuntimeClient) => c.getNode('ghost'),
      status: 404,
      code: 'node_not_found',
      message: 'node ghost does not exist',
    },
    {
      name: 'getPool 404',
      call: (c: HttpRuntimeClient) => c.getPool('ghost'),
      status: 404,
      code: 'pool_not_found',
      message: 'pool ghost does not exist',
    },
    {
      name: 'getSession 404',
      call: (c: HttpRuntimeClient) => c.getSession('ghost'),
      status: 404,
      code: 'session_not_found',
      message: 'session ghost does not exist',
    },
    {
      name: 'createPool 409',
      call: (c: HttpRuntimeClient) => c.createPool({ id: 'default', name: 'Again' }),
      status: 409,
      code: 'pool_exists',
      message: 'pool default already exists',
    },
    {
      name: 'createPool 422',
      call: (c: HttpRuntimeClient) => c.createPool({ id: 'Bad Id', name: 'x' }),
      status: 422,
      code: 'invalid_pool',
      message: expect.stringMatching(/^id: /),
    },
    {
      name: 'pullImage 422',
      call: (c: HttpRuntimeClient) => c.pullImage('node-1', 'Games/X'),
      status: 422,
      code: 'invalid_image',
      message: 'repository name "Games" must be lowercase',
    },
    {
      name: 'assignNodePool 422',
      call: (c: HttpRuntimeClient) => c.assignNodePool('node-1', 'nope'),
      status: 422,
      code: 'pool_not_found',
      message: 'pool nope does not exist',
    },
    {
      name: 'createSession 404',
      call: (c: HttpRuntimeClient) =>
        c.createSession({ id: 'x-1', user_id: 'u', game: { id: 1, slug: 'g' }, pool_id: 'nope', limits: {} }),
      status: 404,
      code: 'pool_not_found',
      message: 'pool nope does not exist',
    },
  ])(
    '$name → RuntimeRefusedError with the runtime code and message, not retried',
    async ({ call, status, code, message }) => {
      const mark = captured.lines().length;
      const error = await failureOf(call(makeClient()));
      expect(error).toBeInstanceOf(RuntimeRefusedError);
      expect(error).toMatchObject({ status, code, message });
      expect(sim.requestLog()).toHaveLength(1);
      expect(logSince(mark)).toEqual([
        expect.objectContaining({ level: 30, status, code, msg: 'runtime refused the request' }),
      ]);
    },
  );

  it('409 pull_in_progress and node_offline come through as refusals', async () => {
    const client = makeClient();
    sim.addNode({ id: 'conflicts' });
    await client.pullImage('conflicts', 'games/a:1');
    expect(await failureOf(client.pullImage('conflicts', 'games/a:1'))).toMatchObject({
      name: 'RuntimeRefusedError',
      operation: 'pullImage',
      status: 409,
      code: 'pull_in_progress',
    });
    sim.setNodeStatus('conflicts', 'offline');
    expect(await failureOf(client.setNodeDraining('conflicts', true))).toMatchObject({
      operation: 'setNodeDraining',
      status: 409,
      code: 'node_offline',
    });
  });

  it('a full pool is 409 no_capacity', async () => {
    const client = makeClient();
    sim.addPool({ id: 'tiny', name: 'Tiny' });
    sim.addNode({ id: 'tiny-1', pool_id: 'tiny', slots: 1 });
    await client.createSession({ id: 'tiny-a', user_id: 'u', game: { id: 1, slug: 'g' }, pool_id: 'tiny', limits: {} });
    const error = await failureOf(
      client.createSession({ id: 'tiny-b', user_id: 'u', game: { id: 1, slug: 'g' }, pool_id: 'tiny', limits: {} }),
    );
    expect(error).toMatchObject({ name: 'RuntimeRefusedError', status: 409, code: 'no_capacity' });
  });

  it('401 (our key is wrong) → RuntimeUnavailableError and an error log line naming operation and status, not retried', async () => {
    const mark = captured.lines().length;
    const error = await failureOf(makeClient({ apiKey: `${KEY}-revoked` }).listPools());
    expect(error).toBeInstanceOf(RuntimeUnavailableError);
    expect(error).toMatchObject({
      operation: 'listPools',
      status: 401,
      message: 'runtime listPools: the runtime refused our API key (401)',
    });
    expect(sim.requestLog()).toEqual(['GET /v1/pools']);
    expect(logSince(mark)).toEqual([
      expect.objectContaining({
        level: 50,
        operation: 'listPools',
        status: 401,
        msg: 'the runtime refused our API key; check RUNTIME_API_KEY',
      }),
    ]);
    expect(captured.text()).not.toContain(`${KEY}-revoked`);
  });

  it('403 is treated like 401', async () => {
    sim.failNextRequests(1, 403);
    const error = await failureOf(makeClient().getNode('node-1'));
    expect(error).toMatchObject({ name: 'RuntimeUnavailableError', status: 403 });
    expect(sim.requestLog()).toHaveLength(1);
  });
});

describe('HttpRuntimeClient retries', () => {
  it('retries a GET after two 503s (warn line per failed attempt, with status and duration) and succeeds', async () => {
    const mark = captured.lines().length;
    sim.failNextRequests(2, 503);
    const started = performance.now();
    expect(await makeClient().getNode('node-1')).toMatchObject({ id: 'node-1' });
    const elapsed = performance.now() - started;
    expect(sim.requestLog()).toEqual(['GET /v1/nodes/node-1', 'GET /v1/nodes/node-1', 'GET /v1/nodes/node-1']);
    // Backoff ~100 ms then ~300 ms (±20 %).
    expect(elapsed).toBeGreaterThanOrEqual(300);
    expect(elapsed).toBeLessThan(2_000);
    const warns = logSince(mark).filter((line) => line.level === 40);
    expect(warns).toEqual(
      [1, 2].map((attempt) =>
        expect.objectContaining({
          operation: 'getNode',
          status: 503,
          attempt,
          duration_ms: expect.any(Number),
          msg: 'runtime call failed',
        }),
      ),
    );
  });

  it('gives up after 1 + retries attempts with RuntimeUnavailableError carrying the last status', async () => {
    sim.failNextRequests(3, 502);
    const error = await failureOf(makeClient().listNodes());
    expect(error).toBeInstanceOf(RuntimeUnavailableError);
    expect(error).toMatchObject({
      operation: 'listNodes',
      status: 502,
      message: 'runtime listNodes: answered 502 (after 3 attempts)',
    });
    expect(sim.requestLog()).toHaveLength(3);
  });

  it('honours retries: 0', async () => {
    sim.failNextRequests(1);
    expect(await failureOf(makeClient({ retries: 0 }).listPools())).toMatchObject({
      name: 'RuntimeUnavailableError',
      status: 503,
    });
    expect(sim.requestLog()).toHaveLength(1);
  });

  it.each([
    { name: 'setNodeDraining', call: (c: HttpRuntimeClient) => c.setNodeDraining('node-2', false) },
    { name: 'assignNodePool', call: (c: HttpRuntimeClient) => c.assignNodePool('node-2', 'default') },
    {
      name: 'stopSession',
      call: (c: HttpRuntimeClient) =>
        c
          .createSession({ id: 'retry-stop', user_id: 'u', game: { id: 1, slug: 'g' }, pool_id: null, limits: {} })
          .then(() => {
            sim.clearRequestLog();
            sim.failNextRequests(1);
            return c.stopSession('retry-stop');
          }),
    },
    {
      name: 'createSession',
      call: (c: HttpRuntimeClient) =>
        c.createSession({ id: 'retry-create', user_id: 'u', game: { id: 1, slug: 'g' }, pool_id: null, limits: {} }),
    },
    { name: 'listPools', call: (c: HttpRuntimeClient) => c.listPools() },
    { name: 'getPool', call: (c: HttpRuntimeClient) => c.getPool('default') },
  ])('retries idempotent $name after a 503', async ({ call }) => {
    sim.failNextRequests(1);
    await call(makeClient());
    expect(sim.requestLog()).toHaveLength(2);
  });

  it.each([
    {
      name: 'createPool',
      call: (c: HttpRuntimeClient) => c.createPool({ id: 'never-made', name: 'x' }),
      check: () => expect(sim.pool('never-made')).toBeUndefined(),
    },
    {
      name: 'updatePool',
      call: (c: HttpRuntimeClient) => c.updatePool('default', { name: 'Never renamed' }),
      check: () => expect(sim.pool('default')!.name).toBe('Default pool'),
    },
    {
      name: 'pullImage',
      call: (c: HttpRuntimeClient) => c.pullImage('node-1', 'games/never:1'),
      check: () => expect(sim.node('node-1')!.images.map((i) => i.image)).not.toContain('games/never:1'),
    },
  ])('does not retry $name: one 503 is RuntimeUnavailableError', async ({ call, check }) => {
    sim.failNextRequests(1);
    const error = await failureOf(call(makeClient()));
    expect(error).toBeInstanceOf(RuntimeUnavailableError);
    expect(error).toMatchObject({ status: 503 });
    expect(sim.requestLog()).toHaveLength(1);
    check();
  });
});

describe('HttpRuntimeClient timeouts and unreachable runtimes', () => {
  it('a slow runtime → RuntimeUnavailableError after timeoutMs, well under twice it, without a retry', async () => {
    const timeoutMs = 400;
    sim.setLatency(2_000);
    const mark = captured.lines().length;
    const started = performance.now();
    const error = await failureOf(makeClient({ timeoutMs }).getNode('node-1'));
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(RuntimeUnavailableError);
    expect(error).toMatchObject({
      operation: 'getNode',
      status: null,
      message: `runtime getNode: no answer within ${timeoutMs} ms`,
    });
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 20);
    expect(elapsed).toBeLessThan(1.75 * timeoutMs);
    expect(sim.requestLog()).toHaveLength(1);
    expect(logSince(mark)).toEqual([
      expect.objectContaining({ level: 40, operation: 'getNode', status: null, reason: 'timeout' }),
    ]);
  });

  it('a closed runtime (connection refused) → RuntimeUnavailableError after the retries', async () => {
    const gone = new RuntimeSimulator({ apiKey: KEY });
    const goneBase = await gone.listen('127.0.0.1', 0);
    await gone.close();
    const mark = captured.lines().length;
    const error = await failureOf(makeClient({ baseUrl: goneBase }).listNodes());
    expect(error).toBeInstanceOf(RuntimeUnavailableError);
    expect(error).toMatchObject({
      operation: 'listNodes',
      status: null,
      message: expect.stringMatching(/^runtime listNodes: connect ECONNREFUSED 127\.0\.0\.1:\d+ \(after 3 attempts\)$/),
    });
    expect(logSince(mark).filter((line) => line.reason === 'network')).toHaveLength(3);
  });

  it('a runtime that never completes the TCP handshake → RuntimeUnavailableError after connectTimeoutMs', async () => {
    // A listener whose process is stopped accepts nothing: once its backlog is full the kernel
    // drops further SYNs, and a connect hangs.
    const child = spawn(process.execPath, [
      '-e',
      "require('net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, function () { console.log(this.address().port) })",
    ]);
    const fillers: Socket[] = [];
    try {
      const port = await new Promise<number>((resolve) =>
        child.stdout.once('data', (data) => resolve(Number(String(data).trim()))),
      );
      process.kill(child.pid!, 'SIGSTOP');
      for (let connected = true; connected && fillers.length < 20; ) {
        const socket = connect({ host: '127.0.0.1', port });
        fillers.push(socket);
        connected = await new Promise<boolean>((resolve) => {
          // A connection the full backlog drops gives no sign: only 300 ms without `connect` tells it.
          const timer = setTimeout(() => resolve(false), 300);
          const settle = (reached: boolean) => {
            clearTimeout(timer);
            resolve(reached);
          };
          socket.once('connect', () => settle(true));
          socket.once('error', () => settle(false));
        });
      }
      const started = performance.now();
      const error = await failureOf(
        makeClient({
          baseUrl: `http://127.0.0.1:${port}`,
          connectTimeoutMs: 150,
          timeoutMs: 5_000,
          retries: 0,
        }).getPool('default'),
      );
      const elapsed = performance.now() - started;
      expect(error).toMatchObject({
        name: 'RuntimeUnavailableError',
        operation: 'getPool',
        status: null,
        message: 'runtime getPool: could not connect within 150 ms',
      });
      expect(elapsed).toBeLessThan(1_000);
    } finally {
      for (const socket of fillers) socket.destroy();
      child.kill('SIGKILL');
    }
  });
});

describe('HttpRuntimeClient against answers outside the contract', () => {
  let server: Server;
  let serverBase = '';
  const received: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const answers = new Map<string, { status: number; body: string }>();

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ method: request.method!, url: request.url!, headers: request.headers, body });
        const answer = answers.get(request.url!) ?? { status: 200, body: '{"ok":true}' };
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}/runtime-api/`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends ids as single encoded path segments, so "." and ".." never mean a directory', async () => {
    const client = makeClient({ baseUrl: serverBase });
    for (const id of ['..', '.', 'a.b/../c']) await failureOf(client.getNode(id));
    expect(received.slice(-3).map((request) => request.url)).toEqual([
      '/runtime-api/v1/nodes/%2E%2E',
      '/runtime-api/v1/nodes/%2E',
      '/runtime-api/v1/nodes/a%2Eb%2F%2E%2E%2Fc',
    ]);
  });

  it('sends the key as a Bearer header, JSON bodies, and paths under the base URL path', async () => {
    answers.set('/runtime-api/v1/nodes/a%2Fb/images', {
      status: 202,
      body: JSON.stringify({ ok: true, image: { image: 'x', status: 'pulling', error: null, updated_at: 'now' } }),
    });
    expect(await makeClient({ baseUrl: serverBase }).pullImage('a/b', 'games/x:1')).toEqual({ ok: true });
    expect(received.at(-1)).toMatchObject({
      method: 'POST',
      url: '/runtime-api/v1/nodes/a%2Fb/images',
      headers: expect.objectContaining({
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        accept: 'application/json',
      }),
      body: '{"image":"games/x:1"}',
    });
  });

  it.each([
    {
      name: 'a 200 that is not JSON',
      path: '/runtime-api/v1/pools',
      status: 200,
      body: '<html>proxy</html>',
      call: (c: HttpRuntimeClient) => c.listPools(),
      message: 'runtime listPools: unreadable answer (200): not JSON',
    },
    {
      name: 'a 200 of the wrong shape',
      path: '/runtime-api/v1/pools/p',
      status: 200,
      body: '{"id":"p"}',
      call: (c: HttpRuntimeClient) => c.getPool('p'),
      message: 'runtime getPool: unreadable answer (200): name: Invalid input: expected string, received undefined',
    },
    {
      name: 'a 404 without an error body (a wrong base URL)',
      path: '/runtime-api/v1/nodes/n',
      status: 404,
      body: 'Not Found',
      call: (c: HttpRuntimeClient) => c.getNode('n'),
      message: 'runtime getNode: unreadable 404 answer: not JSON',
    },
    {
      name: 'a redirect',
      path: '/runtime-api/v1/sessions/s',
      status: 302,
      body: '',
      call: (c: HttpRuntimeClient) => c.getSession('s'),
      message: 'runtime getSession: answered 302',
    },
  ])('$name → RuntimeUnavailableError, not retried', async ({ path, status, body, call, message }) => {
    answers.set(path, { status, body });
    const before = received.length;
    const error = await failureOf(call(makeClient({ baseUrl: serverBase })));
    expect(error).toBeInstanceOf(RuntimeUnavailableError);
    expect(error).toMatchObject({ status, message });
    expect(received.length - before).toBe(1);
  });

  it('re-sends a call once, even one not idempotent, when the server dropped the kept-alive connection it reused', async () => {
    // A server that answers the first request on a connection and drops the connection at the
    // next one, as a server closing an idle keep-alive socket just as it is reused.
    const served = new WeakMap<object, number>();
    let requests = 0;
    const dropping = createServer((request, response) => {
      requests += 1;
      const count = (served.get(request.socket) ?? 0) + 1;
      served.set(request.socket, count);
      if (count > 1) return void request.socket.destroy();
      request.resume();
      const pool = { id: 'p', name: 'P', description: null, node_ids: [], created_at: 'now', updated_at: 'now' };
      response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(pool));
    });
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    try {
      const client = makeClient({ baseUrl: `http://127.0.0.1:${(dropping.address() as AddressInfo).port}` });
      await client.createPool({ id: 'p', name: 'P' });
      expect(await client.createPool({ id: 'p', name: 'P' })).toMatchObject({ id: 'p' });
      expect(requests).toBe(3);
    } finally {
      dropping.closeAllConnections();
      await new Promise<void>((resolve) => dropping.close(() => resolve()));
    }
  });

  it('keeps the key out of an inspected or serialised client', () => {
    const client = makeClient();
    expect(inspect(client, { depth: 5 })).not.toContain(KEY);
    expect(JSON.stringify(client)).not.toContain(KEY);
  });
});

// Last in the file: it reads what every test above logged and threw.
describe('HttpRuntimeClient and the API key', () => {
  it('never puts the key in a log line or an error message', () => {
    // Not vacuous: the tests above logged failures of every kind and threw many errors.
    expect(captured.lines().length).toBeGreaterThan(20);
    expect(new Set(captured.lines().map((line) => (JSON.parse(line) as { level: number }).level))).toEqual(
      new Set([20, 30, 40, 50]),
    );
    expect(captured.text()).not.toContain(KEY);
    expect(thrown.length).toBeGreaterThan(20);
    for (const error of thrown) expect(`${String(error)} ${inspect(error)}`).not.toContain(KEY);
  });
});
