import { z } from 'zod';
import { noTextFilter, pageQuery, pagedResponse } from '../../../kernel/pagination.js';

/** Job ids are PostgreSQL integers: 1 up to 2^31 - 1 (a larger number is a 400, never a 500). */
export const jobIdParams = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });

export const setActiveBody = z
  .object({ active: z.boolean() })
  .strict()
  .meta({ examples: [{ active: false }] });
export const okResult = z
  .object({ ok: z.literal(true) })
  .describe('The change is stored.')
  .meta({ examples: [{ ok: true }] });

export const jobBody = z
  .object({
    id: z.number().int(),
    key: z.string().describe('The handler that does the work.'),
    cron: z.string().describe('Five fields (minute hour day-of-month month day-of-week), in UTC.'),
    description: z.string(),
    deletes_data: z
      .boolean()
      .describe('It deletes or zeroes data (expired grants, purged accounts, lapsed credits): a run cannot be undone.'),
    active: z.boolean(),
    next_run_at: z.date().nullable().describe('Null while disabled.'),
    last_run_at: z.date().nullable(),
    last_result: z.enum(['ok', 'error']).nullable(),
    last_error: z.string().nullable(),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: 'CronJob', description: 'A scheduled job: its schedule, state, and next and last run.' });
export const jobsBody = z
  .object({ data: z.array(jobBody) })
  .describe('Every scheduled job, with its next and last run.');

export const runBody = z
  .object({
    id: z.number().int(),
    job_id: z.number().int(),
    trigger: z.enum(['schedule', 'manual']),
    triggered_by: z.string().nullable().describe('The staff member who asked for a manual run.'),
    started_at: z.date(),
    finished_at: z.date(),
    result: z.enum(['ok', 'error']),
    error: z.string().nullable(),
    summary: z.record(z.string(), z.unknown()).describe('What the run did, e.g. `{ deleted: 3 }`.'),
    instance_id: z.string().describe('The service instance that ran it.'),
  })
  .meta({ id: 'CronJobRun', description: 'One run of a scheduled job.' });
export type RunView = z.infer<typeof runBody>;

export const runsQuery = pageQuery(['started_at'], { field: 'started_at', direction: 'desc' }).extend({
  q: noTextFilter,
  result: z.enum(['ok', 'error']).optional(),
});
export type RunsQuery = z.infer<typeof runsQuery>;
export const runsPage = pagedResponse(runBody);
