import { z } from 'zod';
import { PANIC_LEVELS } from '../../../kernel/maintenance.js';

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

export const maintenanceNotice = panicStateBody
  .extend({
    set_by_name: z
      .string()
      .nullable()
      .describe(
        'Who set it, as staff know them (display name, else email); null when set by incident monitoring or unknown.',
      ),
  })
  .meta({
    id: 'MaintenanceNotice',
    description: 'The maintenance level with the name of whoever set it: what every staff member is shown.',
  });
export type MaintenanceNotice = z.infer<typeof maintenanceNotice>;

export const setPanicBody = z
  .object({
    level: z.enum(PANIC_LEVELS),
    reason: z.string().trim().min(3).max(500),
  })
  .strict()
  .meta({ examples: [{ level: 'degraded', reason: 'Payment provider outage: checkout paused.' }] });
export type SetPanicInput = z.infer<typeof setPanicBody>;

export const panicResult = z
  .object({ panic: panicStateBody })
  .describe('The maintenance level now in force.')
  .meta({
    examples: [
      {
        panic: {
          level: 'degraded',
          reason: 'Payment provider outage: checkout paused.',
          set_by: '3d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a',
          set_at: new Date('2026-11-27T18:04:12.000Z'),
          auto: false,
        },
      },
    ],
  });
