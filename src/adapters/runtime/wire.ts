import { z } from 'zod';
import type { CreatedRuntimeSession, RuntimeNode, RuntimeNodeImage, RuntimePool, RuntimeSession } from './index.js';

/**
 * The Runtime API's answers as the client accepts them (docs/runtime-api.md). Unknown fields are
 * dropped, so nothing the runtime adds can leak into our own responses; a body that does not
 * match is an unreadable answer (RuntimeUnavailableError), never passed on half-checked.
 */

const timestamp = z.string().min(1);

export const nodeImageSchema = z.object({
  image: z.string(),
  status: z.enum(['pulling', 'ready', 'failed']),
  error: z.string().nullable(),
  updated_at: timestamp,
}) satisfies z.ZodType<RuntimeNodeImage>;

export const nodeSchema = z.object({
  id: z.string(),
  pool_id: z.string().nullable(),
  status: z.enum(['ready', 'draining', 'offline']),
  region: z.string().nullable(),
  capacity: z.object({ slots: z.number().int().nonnegative(), used: z.number().int().nonnegative() }),
  images: z.array(nodeImageSchema),
  created_at: timestamp,
  updated_at: timestamp,
}) satisfies z.ZodType<RuntimeNode>;

export const poolSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  node_ids: z.array(z.string()),
  created_at: timestamp,
  updated_at: timestamp,
}) satisfies z.ZodType<RuntimePool>;

export const sessionSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  game_id: z.number().int(),
  pool_id: z.string().nullable(),
  node_id: z.string().nullable(),
  status: z.enum(['starting', 'running', 'stopped', 'failed']),
  play_url: z.string().nullable(),
  created_at: timestamp,
  ended_at: timestamp.nullable(),
}) satisfies z.ZodType<RuntimeSession>;

export const createdSessionSchema = z.object({
  id: z.string(),
  node_id: z.string(),
  pool_id: z.string().nullable(),
  play_url: z.string().min(1),
  member_token: z.string().min(1),
}) satisfies z.ZodType<CreatedRuntimeSession>;

export const nodeListSchema = z.object({ data: z.array(nodeSchema) });
export const poolListSchema = z.object({ data: z.array(poolSchema) });
export const pullAcceptedSchema = z.object({ ok: z.boolean(), image: nodeImageSchema.optional() });

export const errorBodySchema = z.object({ error: z.object({ code: z.string().min(1), message: z.string() }) });

/** `GET /v1/health`. */
export const healthSchema = z.object({ ok: z.literal(true) });
