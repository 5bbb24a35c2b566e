import { z } from 'zod';
import { PANIC_LEVELS } from '../../kernel/maintenance.js';

export const panicStateBody = z
  .object({
    level: z.enum(PANIC_LEVELS),
    reason: z.string().nullable(),
    set_by: z.string().nullable(),
    set_at: z.string().nullable(),
    auto: z.boolean().describe('True when set automatically by incident monitoring.'),
  })
  .meta({
    id: 'MaintenanceState',
    description: 'The maintenance (panic) level: why, who set it and when, and whether it was set automatically.',
  });

export const setPanicBody = z
  .object({
    level: z.enum(PANIC_LEVELS),
    reason: z.string().trim().min(3).max(500),
  })
  .strict();
export type SetPanicInput = z.infer<typeof setPanicBody>;

export const panicResult = z.object({ panic: panicStateBody }).describe('The maintenance level now in force.');
