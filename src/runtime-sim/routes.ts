import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SimulatorRefusal, type SimulatorState } from './state.js';

/**
 * The Runtime HTTP API as the simulator serves it (docs/runtime-api.md is the contract). Handlers
 * parse with zod, call the state, and answer; every refusal is a SimulatorRefusal that the error
 * handler turns into `{ error: { code, message } }`.
 */
export function registerRuntimeRoutes(app: FastifyInstance, state: SimulatorState): void {
  app.get('/v1/health', async () => ({ ok: true }));

  app.get('/v1/nodes', async (request) => ({
    data: state.listNodes(parse(nodeFilter, request.query, 'invalid_request')),
  }));
  app.get('/v1/nodes/:id', async (request) => state.getNode(idOf(request)));
  app.post('/v1/nodes/:id/images', async (request, reply) => {
    const nodeId = idOf(request);
    state.getNode(nodeId); // 404 before the body is judged
    const { image } = parse(pullBody, request.body, 'invalid_image');
    return reply.code(202).send({ ok: true, image: state.pullImage(nodeId, image) });
  });
  app.post('/v1/nodes/:id/drain', async (request) => state.setNodeDraining(idOf(request), true));
  app.post('/v1/nodes/:id/undrain', async (request) => state.setNodeDraining(idOf(request), false));
  app.put('/v1/nodes/:id/pool', async (request) => {
    const nodeId = idOf(request);
    state.getNode(nodeId);
    return state.assignNodePool(nodeId, parse(assignPoolBody, request.body, 'invalid_request').pool_id);
  });

  app.get('/v1/pools', async () => ({ data: state.listPools() }));
  app.get('/v1/pools/:id', async (request) => state.getPool(idOf(request)));
  app.post('/v1/pools', async (request, reply) =>
    reply.code(201).send(state.createPool(parse(createPoolBody, request.body, 'invalid_pool'))),
  );
  app.patch('/v1/pools/:id', async (request) => {
    const poolId = idOf(request);
    state.getPool(poolId);
    return state.updatePool(poolId, parse(updatePoolBody, request.body, 'invalid_pool'));
  });

  app.post('/v1/sessions', async (request, reply) => {
    const { session, created } = state.createSession(parse(createSessionBody, request.body, 'invalid_session'));
    return reply.code(created ? 201 : 200).send(session);
  });
  app.get('/v1/sessions/:id', async (request) => state.getSession(idOf(request)));
  app.post('/v1/sessions/:id/stop', async (request) => state.stopSession(idOf(request)));

  // Not part of the API: where a play URL leads, so a browser opening one sees something.
  app.get('/play/:id', async (request, reply) => {
    const session = state.findSession(idOf(request));
    const text =
      session === undefined
        ? 'No such session.'
        : `Session ${session.id}: ${session.game.slug}, ${session.status} on ${session.node_id}.`;
    return reply
      .code(session === undefined ? 404 : 200)
      .type('text/plain; charset=utf-8')
      .send(`Runtime simulator\n${text}\n`);
  });
}

/** Fastify's own refusals (bad JSON, wrong media type, too large) and crashes, in the API's shape. */
export function runtimeErrorHandler(
  error: Error & { statusCode?: number },
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  if (error instanceof SimulatorRefusal) {
    void reply.code(error.status).send(errorBody(error.code, error.message));
    return;
  }
  const status = error.statusCode ?? 500;
  if (status >= 500) {
    void reply.code(500).send(errorBody('internal', 'the runtime simulator failed to answer'));
    return;
  }
  const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_json';
  void reply.code(status).send(errorBody(code, error.message));
}

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

const POOL_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** An empty query value (`?pool_id=`) means no filter. */
const blankAsAbsent = (value: unknown) => (value === '' ? undefined : value);
/** One message for a missing value, another (or zod's own) for a value of the wrong type. */
function whenMissing(required: string, wrongType?: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? required : wrongType) };
}
const nodeFilter = z.object({
  pool_id: z.preprocess(blankAsAbsent, z.string().max(200).optional()),
  status: z.preprocess(blankAsAbsent, z.enum(['ready', 'draining', 'offline']).optional()),
});
const pullBody = z.object(
  // The reference itself is judged by imageReferenceProblem, whose messages say what to fix.
  { image: z.string(whenMissing('is required', 'must be a string')) },
  whenMissing('a JSON object body is required'),
);
const assignPoolBody = z.object(
  { pool_id: z.string(whenMissing('is required (null for no pool)')).min(1).max(200).nullable() },
  whenMissing('a JSON object body is required'),
);
const poolName = z.string().min(1, 'must be 1 to 100 characters').max(100, 'must be 1 to 100 characters');
const poolDescription = z.string().max(500, 'must be at most 500 characters').nullable();
const createPoolBody = z.object(
  {
    id: z
      .string(whenMissing('is required'))
      .regex(POOL_ID, 'must be 1 to 63 lowercase letters, digits or "-", starting with a letter or digit'),
    name: poolName,
    description: poolDescription.optional(),
  },
  whenMissing('a JSON object body is required'),
);
const updatePoolBody = z.object(
  { name: poolName.optional(), description: poolDescription.optional() },
  whenMissing('a JSON object body is required'),
);
const createSessionBody = z.object(
  {
    id: z.string(whenMissing('is required')).regex(SESSION_ID, 'must be 1 to 200 letters, digits, ".", "_" or "-"'),
    user_id: z.string(whenMissing('is required')).min(1).max(200),
    game: z.object({ id: z.number().int().positive(), slug: z.string().min(1).max(200) }, whenMissing('is required')),
    pool_id: z.string().min(1).max(200).nullable().default(null),
    limits: z.record(z.string(), z.unknown()).default({}),
  },
  whenMissing('a JSON object body is required'),
);

/** The body or query parsed, or a 422 with `code` naming the first problem (`field: why`). */
function parse<T>(schema: z.ZodType<T, unknown>, value: unknown, code: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.join('.');
  throw new SimulatorRefusal(422, code, where === '' ? issue.message : `${where}: ${issue.message}`);
}

function idOf(request: FastifyRequest): string {
  return (request.params as { id: string }).id;
}
