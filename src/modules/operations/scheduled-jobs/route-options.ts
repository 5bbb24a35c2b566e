// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { jobIdParams, jobsBody, okResult, runBody, runsPage, runsQuery, setActiveBody } from './schemas.js';

const tags = ['scheduled jobs'];
const unknownJob =
  'An unknown id is 404 `not_found` (`details.id`); an id that is not an integer from 1 to 2147483647 is a 400 ' +
  'SchemaError.';

export const listSystemCronJobs = {
  config: { perms: ['settings.read'] },
  schema: {
    operationId: 'listSystemCronJobs',
    tags,
    summary: 'List scheduled jobs with their next and last run',
    response: { 200: jobsBody },
  },
} as const;

export const setSystemCronJobActive = {
  config: { perms: ['settings.write'], errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'setSystemCronJobActive',
    tags,
    summary: 'Enable or disable a scheduled job',
    description:
      `Enabling schedules the next occurrence from now; disabling clears the next run. Audited as ` +
      `\`system.cron.enable\` / \`system.cron.disable\`. ${unknownJob}`,
    params: jobIdParams,
    body: setActiveBody,
    response: { 200: okResult },
  },
} as const;

export const runSystemCronJob = {
  config: { perms: ['settings.write'], errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'runSystemCronJob',
    tags,
    summary: 'Run a scheduled job now',
    description:
      `Runs on this instance, even when the job is disabled, without moving its schedule; waits for a scheduled ` +
      `run of the same job in progress. Answers the run record: a failing job is still 200, with \`result: ` +
      `"error"\` and \`error\`. Audited as \`system.cron.run\`. ${unknownJob}`,
    params: jobIdParams,
    response: { 200: runBody },
  },
} as const;

export const listSystemCronJobRuns = {
  config: { perms: ['settings.read'], errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'listSystemCronJobRuns',
    tags,
    summary: "A scheduled job's run history, newest first",
    description:
      `Runs are kept 90 days (the daily \`prune-job-runs\` job); the job's last outcome stays on the job ` +
      `itself. ${unknownJob}`,
    params: jobIdParams,
    querystring: runsQuery,
    response: { 200: runsPage },
  },
} as const;
