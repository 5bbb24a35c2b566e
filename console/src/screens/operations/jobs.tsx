import { type paths, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { useWrite, type WriteOptions } from '../../api/writes';
import { Confirm } from '../../ui/confirm';
import { DataTable } from '../../ui/data-table';
import { LongText } from '../../ui/long-text';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { notify } from '../../ui/toasts';
import { OperationsNav } from './operations-nav';

type Job = paths['/v1/admin/system/cron']['get']['responses'][200]['content']['application/json']['data'][number];
type Run = paths['/v1/admin/system/cron/{id}/run']['post']['responses'][200]['content']['application/json'];

/** Scheduled jobs: enable, disable, run now (asking first for one that deletes), and each job's run history. */
export default function JobsPage() {
  const permissions = usePermissions();
  const canWrite = permissions.can('settings.write');
  const [open, setOpen] = useState<number | undefined>();
  const jobs = useQuery({ queryKey: ['ops', 'jobs'], queryFn: () => unwrap(api.GET('/v1/admin/system/cron')) });
  const setActive = useWrite({
    call: ({ id, active }: { id: number; key: string; active: boolean }) =>
      unwrap(api.PATCH('/v1/admin/system/cron/{id}', { params: { path: { id } }, body: { active } })),
    success: (_job, { key, active }) => `${key} ${active ? 'enabled' : 'disabled'}`,
    failure: 'Could not change the job',
    invalidates: [['ops', 'jobs']],
  });
  const runWrite = (job: Job) => ({
    call: () => unwrap(api.POST('/v1/admin/system/cron/{id}/run', { params: { path: { id: job.id } } })),
    success: (run: Run) => (run.result === 'ok' ? `${job.key} ran: ${JSON.stringify(run.summary)}` : undefined),
    failure: `Could not run ${job.key}`,
    invalidates: [
      ['ops', 'jobs'],
      ['ops', 'job-runs', job.id],
    ],
    onDone: (run: Run) => {
      if (run.result !== 'ok') notify.failure(`${job.key} failed`, new Error(run.error ?? 'error'));
      setOpen(job.id);
    },
  });

  return (
    <section className="stack">
      <h1>Operations</h1>
      <OperationsNav />
      <h2>Scheduled jobs</h2>
      {canWrite ? null : <p className="hint">Changing jobs needs settings.write.</p>}
      {jobs.error === null ? null : <ProblemNote error={jobs.error} />}
      <DataTable
        label="Scheduled jobs"
        items={jobs.data?.data ?? []}
        emptyText={jobs.isPending ? 'Loading…' : 'No scheduled jobs.'}
        columns={[
          {
            id: 'key',
            name: 'Job',
            isRowHeader: true,
            render: (job) => (
              <span className="stack-tight">
                <code>{job.key}</code>
                <span className="hint">{job.description}</span>
              </span>
            ),
          },
          { id: 'cron', name: 'Schedule (UTC)', render: (job) => <code>{job.cron}</code> },
          { id: 'next', name: 'Next run', render: (job) => <Time value={job.next_run_at} /> },
          {
            id: 'last',
            name: 'Last run',
            render: (job) => (
              <>
                <Time value={job.last_run_at} /> {job.last_result ?? ''}
              </>
            ),
          },
          {
            id: 'active',
            name: 'Enabled',
            render: (job) => (
              <Switch
                className="switch"
                isSelected={job.active}
                isDisabled={!canWrite || setActive.isPending}
                onChange={(active) => setActive.mutate({ id: job.id, key: job.key, active })}
                aria-label={`${job.key} enabled`}
              >
                <span className="switch-track" aria-hidden="true" />
              </Switch>
            ),
          },
          {
            id: 'actions',
            name: 'Actions',
            render: (job) => (
              <span className="button-row">
                {job.deletes_data ? (
                  <Confirm
                    trigger="Run now…"
                    isDisabled={!canWrite}
                    destructive
                    title={`Run ${job.key} now?`}
                    consequence={
                      <>
                        <p>
                          It deletes data, now instead of at its next scheduled run: <strong>{job.description}</strong>
                        </p>
                        <p>What it deletes cannot be brought back.</p>
                      </>
                    }
                    confirmLabel={`Run ${job.key}`}
                    write={runWrite(job)}
                  />
                ) : (
                  <RunNow job={job} canWrite={canWrite} write={runWrite(job)} />
                )}
                <Button className="btn btn-quiet" onPress={() => setOpen(open === job.id ? undefined : job.id)}>
                  {open === job.id ? 'Hide history' : 'History'}
                </Button>
              </span>
            ),
          },
        ]}
      />
      {open === undefined ? null : (
        <JobRuns id={open} name={jobs.data?.data.find((job) => job.id === open)?.key ?? ''} />
      )}
    </section>
  );
}

/** Run now, at once, for a job that deletes nothing. */
function RunNow({ job, canWrite, write }: { job: Job; canWrite: boolean; write: WriteOptions<void, Run> }) {
  const run = useWrite<void, Run>(write);
  return (
    <Button className="btn" isDisabled={!canWrite || run.isPending} onPress={() => run.mutate()}>
      {run.isPending ? `Running ${job.key}…` : 'Run now'}
    </Button>
  );
}

const RUNS_PER_PAGE = 10;

function JobRuns({ id, name }: { id: number; name: string }) {
  const [page, setPage] = useState(1);
  const runs = usePagedQuery(['ops', 'job-runs', id, page], () =>
    unwrap(
      api.GET('/v1/admin/system/cron/{id}/runs', {
        params: { path: { id }, query: { page, per_page: RUNS_PER_PAGE, sort: 'started_at:desc' } },
      }),
    ),
  );
  return (
    <section className="stack" aria-labelledby="runs-heading">
      <h2 id="runs-heading">Runs of {name}</h2>
      <PagedTable
        label={`Runs of ${name}`}
        list={runs}
        page={page}
        perPage={RUNS_PER_PAGE}
        onPage={setPage}
        emptyText="Not run yet."
        columns={[
          { id: 'started', name: 'Started', isRowHeader: true, render: (run) => <Time value={run.started_at} /> },
          { id: 'trigger', name: 'Trigger', render: (run) => run.trigger },
          { id: 'result', name: 'Result', render: (run) => run.result },
          {
            id: 'summary',
            name: 'What it did',
            render: (run) => <LongText value={run.error ?? JSON.stringify(run.summary)} />,
          },
        ]}
      />
    </section>
  );
}
