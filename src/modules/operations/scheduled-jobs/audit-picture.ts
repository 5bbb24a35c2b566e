import { asInstant, auditPicture } from '../../../kernel/audit.js';
import type { ScheduledJobsTable } from './tables.js';

/** What a scheduled job's audit rows keep: whether it runs and when next. */
export const scheduledJobPicture = auditPicture<ScheduledJobsTable>({
  id: false,
  key: false,
  cron: false,
  description: false,
  active: true,
  deletes_data: false,
  next_run_at: asInstant,
  last_run_at: false,
  last_result: false,
  last_error: false,
  created_at: false,
  updated_at: false,
});
