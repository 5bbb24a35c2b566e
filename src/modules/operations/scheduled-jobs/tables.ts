import type { ColumnType, Generated, Selectable } from 'kysely';
import type { DefaultedTimestamp, Json, NullableTimestamp } from '../../../db/column-types.js';

export type JobResult = 'ok' | 'error';
export type JobTrigger = 'schedule' | 'manual';

export interface ScheduledJobsTable {
  id: Generated<number>;
  key: string;
  cron: string;
  description: ColumnType<string, string | undefined, string>;
  active: ColumnType<boolean, boolean | undefined, boolean>;
  deletes_data: ColumnType<boolean, boolean | undefined, boolean>;
  next_run_at: NullableTimestamp;
  last_run_at: NullableTimestamp;
  last_result: ColumnType<JobResult | null, JobResult | null | undefined, JobResult | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface ScheduledJobRunsTable {
  id: Generated<number>;
  job_id: number;
  trigger: JobTrigger;
  triggered_by: string | null;
  started_at: ColumnType<Date, Date | string, Date | string>;
  finished_at: ColumnType<Date, Date | string, Date | string>;
  result: JobResult;
  error: string | null;
  summary: Json;
  instance_id: string;
}

export type ScheduledJobRow = Selectable<ScheduledJobsTable>;
export type ScheduledJobRunRow = Selectable<ScheduledJobRunsTable>;

declare module '../../../db/tables.js' {
  interface Tables {
    scheduled_jobs: ScheduledJobsTable;
    scheduled_job_runs: ScheduledJobRunsTable;
  }
}
