import { z } from 'zod';

/**
 * The staff view of the Runtime service's nodes and pools. Response schemas name every field
 * they pass on: whatever else the runtime answers is dropped by the serializer, never echoed.
 */

// As the runtime sends them (ISO 8601); not re-checked here, so a runtime's format never turns into a 500.
const timestamp = z.string().describe('ISO 8601 date-time');

export const nodeIdParams = z.object({ id: z.string().min(1).max(200) });
export const poolIdParams = z.object({ id: z.string().min(1).max(200) });

/** The runtime's own rule for pool ids (its `POST /v1/pools` refuses anything else). */
export const poolId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'id must match ^[a-z0-9][a-z0-9-]{0,62}$');

export const runtimeNodeStatus = z.enum(['ready', 'draining', 'offline']);

export const runtimeNodeImageBody = z.object({
  image: z.string(),
  status: z.enum(['pulling', 'ready', 'failed']),
  error: z.string().nullable().describe('Why the last pull failed; null otherwise.'),
  updated_at: timestamp,
});

export const runtimeNodeBody = z
  .object({
    id: z.string(),
    pool_id: z.string().nullable(),
    status: runtimeNodeStatus.describe('`draining`: takes no new sessions, running ones go on.'),
    region: z.string().nullable(),
    capacity: z
      .object({ slots: z.number().int(), used: z.number().int() })
      .describe('Session slots: how many the node runs at once, how many are taken.'),
    images: z.array(runtimeNodeImageBody),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'RuntimeNode', description: 'A runtime node: its pool, state, capacity and images.' });
export const runtimeNodesBody = z
  .object({ data: z.array(runtimeNodeBody) })
  .describe('Every runtime node, sorted by id.');

export const runtimePoolBody = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    node_ids: z.array(z.string()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'RuntimePool', description: 'A runtime pool and its nodes.' });
export const runtimePoolsBody = z.object({ data: z.array(runtimePoolBody) }).describe('Every runtime pool.');

export const listNodesQuery = z.object({
  pool_id: z.string().min(1).max(200).optional(),
  status: runtimeNodeStatus.optional(),
});
export type ListNodesQuery = z.infer<typeof listNodesQuery>;

export const pullImageBody = z
  .object({ image: z.string().min(1).max(500) })
  .strict()
  .meta({ examples: [{ image: 'registry.nimbusplay.example/games/starfall:1.4.2' }] });
export const pullImageResult = z
  .object({
    ok: z.boolean().describe('The runtime accepted the pull; it goes on in the background.'),
  })
  .describe('Whether the runtime accepted the pull.')
  .meta({ examples: [{ ok: true }] });

const reason = z.string().max(500);

/** Drain and undrain take an optional reason, kept on the audit row; no body at all is fine. */
export const drainBody = z.object({ reason: reason.optional() }).strict().nullish();

export const assignPoolBody = z
  .object({
    pool_id: z
      .string()
      .min(1)
      .max(200)
      .nullable()
      .describe('The pool to move the node into; null takes it out of every pool.'),
    reason: reason.optional(),
  })
  .strict();

const poolName = z.string().trim().min(1).max(100);
const poolDescription = z.string().max(500).nullable();

export const createPoolBody = z
  .object({
    id: poolId,
    name: poolName,
    description: poolDescription.optional(),
  })
  .strict();
export type CreatePoolInput = z.infer<typeof createPoolBody>;

export const updatePoolBody = z
  .object({
    name: poolName.optional(),
    description: poolDescription.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { error: 'provide at least one of name, description' });
export type UpdatePoolInput = z.infer<typeof updatePoolBody>;
