import { z } from 'zod';
import type { Kernel } from '../../kernel/kernel.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { HealthService } from './service.js';

const healthBody = z
  .object({
    status: z.literal('ok'),
    database: z.enum(['ok', 'unreachable']),
  })
  .describe('The service answers; `database` says whether its database does.');

export function registerHealthRoutes(app: ZodApp, kernel: Kernel): void {
  const health = new HealthService(kernel.db);

  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['system'],
        summary: 'Liveness, with the database state',
        description: 'Answers 200 while the process serves, at every maintenance level, without a token.',
        response: { 200: healthBody },
      },
    },
    () => health.status(),
  );
}
