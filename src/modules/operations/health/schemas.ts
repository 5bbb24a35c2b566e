import { z } from 'zod';

export const healthBody = z
  .object({
    status: z.literal('ok'),
    database: z.enum(['ok', 'unreachable']),
  })
  .describe('The service answers; `database` says whether its database does.');

export const livenessBody = z
  .object({ status: z.literal('ok') })
  .meta({ id: 'Liveness', description: 'The process answers: its event loop turns and it serves HTTP.' });

export const readinessChecks = z
  .object({
    database: z.enum(['ok', 'unreachable']).describe('The database answered a query within 2 s.'),
    migrations: z
      .enum(['ok', 'pending', 'unknown'])
      .describe('Every migration this build carries is applied; `unknown` while the database does not answer.'),
    redis: z
      .enum(['ok', 'unreachable', 'not_configured'])
      .describe('The rate-limit store (`REDIS_URL`) answered a PING within its budget; `not_configured` without one.'),
    draining: z.boolean().describe('The instance received SIGTERM and is finishing its work before it stops.'),
  })
  .meta({ id: 'ReadinessChecks', description: 'The state of each part readiness depends on.' });

export const readinessBody = z
  .object({ status: z.literal('ready'), checks: readinessChecks })
  .meta({ id: 'Readiness', description: 'This instance can take traffic: every part it depends on answers.' });
