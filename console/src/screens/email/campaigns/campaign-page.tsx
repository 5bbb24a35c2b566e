import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { Link } from 'wouter';
import { api } from '../../../api/client';
import { ruleOf } from '../../../api/field-rules';
import { usePermissions } from '../../../api/permissions';
import { useLiveFeed } from '../../../api/realtime';
import { useWrite } from '../../../api/writes';
import { Confirm } from '../../../ui/confirm';
import { TextInput } from '../../../ui/fields';
import { FormDialog } from '../../../ui/form-dialog';
import { ActorLink } from '../../../ui/names';
import { ProblemNote } from '../../../ui/problem-note';
import { instantOf, Time } from '../../../ui/time';
import { type Campaign, EditCampaign, NEEDS_SEND } from './campaign-form';
import { StatusBadge } from './campaign-status';
import { EmailNav } from '../email-nav';
import '../audiences/audiences.css';

const number = (value: number) => value.toLocaleString('en-GB');
/** While a campaign sends, its counts are read again this often (besides each realtime event about it). */
const SENDING_REFRESH_MS = 1_000;

/** One campaign: its progress as it sends, and what can be done with it in its state. */
export default function CampaignPage({ id }: { id: string }) {
  const permissions = usePermissions();
  const campaign = useQuery({
    queryKey: ['email', 'campaign', id],
    queryFn: () => unwrap(api.GET('/v1/admin/email/campaigns/{id}', { params: { path: { id } } })),
    refetchInterval: (query) => (query.state.data?.status === 'sending' ? SENDING_REFRESH_MS : false),
  });
  // The socket's `area:email` channel brings each change of a campaign (launched, paused, sent…),
  // and the console's live provider refetches the campaign; the counts move between them.
  const live = useLiveFeed().connected && permissions.can('email.read');

  if (campaign.error !== null)
    return (
      <section className="stack">
        <Link href="/email/campaigns">← Campaigns</Link>
        <ProblemNote error={campaign.error} />
      </section>
    );
  if (campaign.data === undefined) return <p className="loading">Loading…</p>;
  const current = campaign.data;
  const canWrite = permissions.can('email.write');
  const canSend = permissions.can('email.send');
  return (
    <section className="stack">
      <h1>Email</h1>
      <EmailNav />
      <Link href="/email/campaigns">← Campaigns</Link>
      <header className="page-header">
        <h2>{current.name}</h2>
        <StatusBadge status={current.status} />
      </header>
      <Actions campaign={current} canWrite={canWrite} canSend={canSend} />
      <p className="muted">
        {live
          ? 'Live: changes made anywhere show here as they happen.'
          : 'The counts refresh every second while the campaign sends.'}
      </p>
      <div className="email-card-columns">
        <Progress campaign={current} />
        <Facts campaign={current} />
      </div>
    </section>
  );
}

function Progress({ campaign }: { campaign: Campaign }) {
  const counts = campaign.counts;
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const waiting = counts.queued + counts.held + counts.sending;
  const share = (count: number) => (total === 0 ? 0 : (count / total) * 100);
  return (
    <section className="card stack-tight" aria-labelledby="progress-heading">
      <h3 id="progress-heading">Progress</h3>
      {campaign.recipients === null ? (
        <p className="muted">Not launched yet: nothing is queued.</p>
      ) : (
        <>
          <p className="email-figure" role="status" aria-live="polite">
            {number(counts.sent)} of {number(campaign.recipients)} sent
            {counts.failed > 0 ? `, ${number(counts.failed)} failed` : ''}
          </p>
          <div
            className="email-bar"
            role="img"
            aria-label={`${number(counts.sent)} sent, ${number(counts.failed)} failed, ${number(waiting)} waiting`}
          >
            <span className="email-bar-sent" style={{ width: `${share(counts.sent)}%` }} />
            <span className="email-bar-failed" style={{ width: `${share(counts.failed)}%` }} />
            <span className="email-bar-other" style={{ width: `${share(counts.skipped + counts.cancelled)}%` }} />
          </div>
          <dl className="facts" aria-label="Messages by state">
            <dt>Queued</dt>
            <dd data-testid="count-queued">{number(counts.queued)}</dd>
            <dt>Held (paused or stopped)</dt>
            <dd>{number(counts.held)}</dd>
            <dt>With the mail server</dt>
            <dd>{number(counts.sending)}</dd>
            <dt>Sent</dt>
            <dd data-testid="count-sent">{number(counts.sent)}</dd>
            <dt>Failed</dt>
            <dd data-testid="count-failed">{number(counts.failed)}</dd>
            <dt>Skipped (unsubscribed since launch)</dt>
            <dd>{number(counts.skipped)}</dd>
            <dt>Cancelled</dt>
            <dd>{number(counts.cancelled)}</dd>
          </dl>
          <Link href={`/email/outbox?campaign_id=${campaign.id}`}>This campaign's messages in the outbox</Link>
        </>
      )}
    </section>
  );
}

function Facts({ campaign }: { campaign: Campaign }) {
  return (
    <section className="card stack-tight" aria-labelledby="facts-heading">
      <h3 id="facts-heading">Campaign</h3>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={campaign.status} />
          {campaign.status_reason === null ? null : ` ${campaign.status_reason}`}
        </dd>
        <dt>Template</dt>
        <dd>
          {campaign.template_key}
          {campaign.template_version === null ? ' (the published version at launch)' : ` v${campaign.template_version}`}
        </dd>
        <dt>Audience</dt>
        <dd>
          {campaign.audience_id === null ? (
            'none: choose one before launching'
          ) : (
            <Link href={`/email/audiences/${campaign.audience_id}`}>{campaign.audience_name}</Link>
          )}
        </dd>
        <dt>Recipients</dt>
        <dd>
          {campaign.recipients === null
            ? 'fixed at launch'
            : `${number(campaign.recipients)} (${number(campaign.excluded ?? 0)} left out: unsubscribed, banned or deleted)`}
        </dd>
        <dt>Variables</dt>
        <dd>{Object.keys(campaign.vars).length === 0 ? 'none' : <code>{JSON.stringify(campaign.vars)}</code>}</dd>
        <dt>Stops after</dt>
        <dd>{campaign.max_consecutive_failures} failures in a row</dd>
        <dt>Scheduled for</dt>
        <dd>
          <Time value={campaign.scheduled_at} />
        </dd>
        <dt>Launched</dt>
        <dd>
          <Time value={campaign.launched_at} />
        </dd>
        <dt>Completed</dt>
        <dd>
          <Time value={campaign.completed_at} />
        </dd>
        <dt>Created by</dt>
        <dd>
          <ActorLink id={campaign.created_by} /> <Time value={campaign.created_at} />
        </dd>
      </dl>
    </section>
  );
}

function Actions({ campaign, canWrite, canSend }: { campaign: Campaign; canWrite: boolean; canSend: boolean }) {
  const launched = campaign.launched_at !== null;
  const editable =
    campaign.status === 'draft' || campaign.status === 'scheduled' || (campaign.status === 'failed' && !launched);
  const launchable = campaign.status === 'draft' || (campaign.status === 'failed' && !launched);
  const resumable = campaign.status === 'paused' || (campaign.status === 'failed' && launched);
  const cancellable = campaign.status !== 'sent' && campaign.status !== 'cancelled';
  if (!editable && !launchable && !resumable && !cancellable && campaign.status !== 'sending')
    return <p className="muted">A {campaign.status} campaign is final: nothing more can be done with it.</p>;
  return (
    <div className="button-row">
      {editable ? <EditCampaign campaign={campaign} canWrite={canWrite} /> : null}
      {launchable || campaign.status === 'scheduled' ? <Launch campaign={campaign} canSend={canSend} /> : null}
      {launchable ? <Schedule campaign={campaign} canSend={canSend} /> : null}
      {campaign.status === 'scheduled' ? <Simple campaign={campaign} canSend={canSend} action="unschedule" /> : null}
      {campaign.status === 'sending' ? <Simple campaign={campaign} canSend={canSend} action="pause" /> : null}
      {resumable ? <Simple campaign={campaign} canSend={canSend} action="resume" /> : null}
      {cancellable ? <Cancel campaign={campaign} canSend={canSend} /> : null}
    </div>
  );
}

const refreshed = (campaign: Campaign) => [
  ['email', 'campaign', campaign.id],
  ['email', 'campaigns'],
];

function Launch({ campaign, canSend }: { campaign: Campaign; canSend: boolean }) {
  const audienceId = campaign.audience_id;
  const count = useQuery({
    queryKey: ['email', 'audience', audienceId, 'preview-count', 'launch'],
    enabled: audienceId !== null,
    queryFn: () =>
      unwrap(api.GET('/v1/admin/email/audiences/{id}/preview-count', { params: { path: { id: audienceId ?? '' } } })),
  });
  const blocked = !canSend ? NEEDS_SEND : audienceId === null ? 'Choose an audience first' : undefined;
  return (
    <Confirm<Campaign>
      trigger="Launch now…"
      triggerClassName="btn btn-primary"
      isDisabled={blocked !== undefined}
      disabledReason={blocked}
      title={`Launch ${campaign.name} now?`}
      consequence={
        count.data === undefined
          ? `Mail goes out at once to every mailable member of ${campaign.audience_name}.`
          : `${number(count.data.mailable)} members of ${campaign.audience_name} are mailed ${campaign.template_key} ` +
            `now (${number(count.data.total - count.data.mailable)} are left out: unsubscribed, bounced, banned or ` +
            `deleted). Mail that went out cannot be called back; you can pause or cancel what is still queued.`
      }
      confirmLabel="Launch"
      write={{
        call: () =>
          unwrap(api.POST('/v1/admin/email/campaigns/{id}/launch', { params: { path: { id: campaign.id } } })),
        success: (launched) => `${launched.name} launched to ${number(launched.recipients ?? 0)} recipients`,
        failure: 'Could not launch the campaign',
        invalidates: refreshed(campaign),
      }}
    />
  );
}

function Schedule({ campaign, canSend }: { campaign: Campaign; canSend: boolean }) {
  const [at, setAt] = useState('');
  return (
    <FormDialog<Campaign>
      title={`Schedule ${campaign.name}`}
      submitLabel="Schedule"
      trigger={{ label: 'Schedule…', isDisabled: !canSend, disabledReason: canSend ? undefined : NEEDS_SEND }}
      onOpen={() => setAt('')}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/email/campaigns/{id}/schedule', {
              params: { path: { id: campaign.id } },
              body: { at: instantOf(at) ?? '' },
            }),
          ),
        success: (scheduled) => `${scheduled.name} scheduled`,
        failure: 'Could not schedule the campaign',
        invalidates: refreshed(campaign),
      }}
    >
      <TextInput
        label="Launch at (your time)"
        name="at"
        type="datetime-local"
        value={at}
        onChange={setAt}
        isRequired
        description="In the future, within a year. The scheduler checks every minute."
        autoFocus
      />
    </FormDialog>
  );
}

const SIMPLE = {
  unschedule: {
    label: 'Unschedule',
    done: 'unscheduled: back to draft',
    failure: 'Could not unschedule the campaign',
  },
  pause: { label: 'Pause', done: 'paused: queued mail is held', failure: 'Could not pause the campaign' },
  resume: { label: 'Resume', done: 'resumed', failure: 'Could not resume the campaign' },
} as const;

/** Unschedule, pause and resume: nothing is lost, so no confirmation. */
function Simple({ campaign, canSend, action }: { campaign: Campaign; canSend: boolean; action: keyof typeof SIMPLE }) {
  const words = SIMPLE[action];
  const path = { params: { path: { id: campaign.id } } };
  const write = useWrite({
    call: async () => {
      if (action === 'unschedule') await unwrap(api.POST('/v1/admin/email/campaigns/{id}/unschedule', path));
      else if (action === 'pause') await unwrap(api.POST('/v1/admin/email/campaigns/{id}/pause', path));
      else await unwrap(api.POST('/v1/admin/email/campaigns/{id}/resume', path));
    },
    success: `${campaign.name} ${words.done}`,
    failure: words.failure,
    invalidates: refreshed(campaign),
  });
  return (
    <span className="stack-tight">
      <Button
        className="btn"
        isDisabled={!canSend || write.isPending}
        aria-description={canSend ? undefined : NEEDS_SEND}
        onPress={() => write.mutate()}
      >
        {write.isPending ? 'Working…' : words.label}
      </Button>
      {canSend ? null : <span className="hint">{NEEDS_SEND}</span>}
    </span>
  );
}

function Cancel({ campaign, canSend }: { campaign: Campaign; canSend: boolean }) {
  const waiting = campaign.counts.queued + campaign.counts.held;
  const consequence =
    campaign.launched_at === null
      ? `${campaign.name} will never be sent${campaign.status === 'scheduled' ? ' (its schedule is dropped)' : ''}; a cancelled campaign cannot be edited or launched again. Create a new one to send later.`
      : `The ${number(waiting)} messages not yet sent are dropped and never go out; the ${number(campaign.counts.sent)} already sent stay sent. A cancelled campaign cannot be resumed.`;
  return (
    <Confirm<Campaign>
      trigger="Cancel campaign…"
      destructive
      isDisabled={!canSend}
      disabledReason={canSend ? undefined : NEEDS_SEND}
      title={`Cancel ${campaign.name}?`}
      consequence={consequence}
      reason={{ ...ruleOf('POST /v1/admin/email/campaigns/{id}/cancel', 'reason'), required: false }}
      confirmLabel="Cancel campaign"
      write={{
        call: (reason) =>
          unwrap(
            api.POST('/v1/admin/email/campaigns/{id}/cancel', {
              params: { path: { id: campaign.id } },
              body: reason === '' ? {} : { reason },
            }),
          ),
        success: (cancelled) => `${cancelled.name} cancelled`,
        failure: 'Could not cancel the campaign',
        invalidates: refreshed(campaign),
      }}
    />
  );
}
