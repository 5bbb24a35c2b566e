import { unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { DataTable, Pager } from '../../ui/data-table';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { notify } from '../../ui/toasts';
import { OperationsNav } from './operations-nav';

/** Scheduled jobs: enable, disable, run now, and each job's run history. */
export default function JobsPage() {
  const permissions = usePermissions();
  const queryClient = useQueryClient();
  const canWrite = permissions.can('settings.write');
  const [open, setOpen] = useState<number | undefined>();
  const jobs = useQuery({ queryKey: ['ops', 'jobs'], queryFn: () => unwrap(api.GET('/v1/admin/system/cron')) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['ops', 'jobs'] });

  const setActive = async (id: number, key: string, active: boolean) => {
    try {
      await unwrap(api.PATCH('/v1/admin/system/cron/{id}', { params: { path: { id } }, body: { active } }));
      notify.success(`${key} ${active ? 'enabled' : 'disabled'}`);
      await refresh();
    } catch (error) {
      notify.failure(`Could not change ${key}`, error);
    }
  };
  const runNow = async (id: number, key: string) => {
    try {
      const run = await unwrap(api.POST('/v1/admin/system/cron/{id}/run', { params: { path: { id } } }));
      if (run.result === 'ok') notify.success(`${key} ran: ${JSON.stringify(run.summary)}`);
      else notify.failure(`${key} failed`, new Error(run.error ?? 'error'));
      setOpen(id);
      await Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: ['ops', 'job-runs', id] })]);
    } catch (error) {
      notify.failure(`Could not run ${key}`, error);
    }
  };

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
                isDisabled={!canWrite}
                onChange={(on) => void setActive(job.id, job.key, on)}
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
                <Button className="btn" isDisabled={!canWrite} onPress={() => void runNow(job.id, job.key)}>
                  Run now
                </Button>
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

const RUNS_PER_PAGE = 10;

function JobRuns({ id, name }: { id: number; name: string }) {
  const [page, setPage] = useState(1);
  const runs = useQuery({
    queryKey: ['ops', 'job-runs', id, page],
    queryFn: () =>
      unwrap(
        api.GET('/v1/admin/system/cron/{id}/runs', {
          params: { path: { id }, query: { page, per_page: RUNS_PER_PAGE, sort: 'started_at:desc' } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="stack" aria-labelledby="runs-heading">
      <h2 id="runs-heading">Runs of {name}</h2>
      {runs.error === null ? null : <ProblemNote error={runs.error} />}
      <DataTable
        label={`Runs of ${name}`}
        items={runs.data?.data ?? []}
        emptyText={runs.isPending ? 'Loading…' : 'Not run yet.'}
        columns={[
          { id: 'started', name: 'Started', isRowHeader: true, render: (run) => <Time value={run.started_at} /> },
          { id: 'trigger', name: 'Trigger', render: (run) => run.trigger },
          { id: 'result', name: 'Result', render: (run) => run.result },
          {
            id: 'summary',
            name: 'What it did',
            render: (run) => (run.error === null ? <code>{JSON.stringify(run.summary)}</code> : run.error),
          },
        ]}
      />
      {runs.data === undefined ? null : (
        <Pager page={page} perPage={RUNS_PER_PAGE} total={runs.data.meta.total ?? 0} onPage={setPage} />
      )}
    </section>
  );
}
