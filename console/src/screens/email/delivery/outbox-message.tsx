import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../../api/client';
import { usePermissions } from '../../../api/permissions';
import { UserLink } from '../../../ui/names';
import { ProblemNote } from '../../../ui/problem-note';
import { Time } from '../../../ui/time';
import { EmailHtml, EmailText } from '../email-html';
import { EmailNav } from '../email-nav';
import { CampaignName } from './outbox';
import { redactSecrets, redactValue } from './redact';
import { RetryMessage } from './retry-message';
import { MessageStatus } from './statuses';

/**
 * One outbound message as it was (or will be) sent: its state and attempts, where it came from,
 * its headers and bodies. Signed links (the unsubscribe token, signed URLs) show as `[hidden]`.
 */
export default function OutboxMessagePage({ id }: { id: string }) {
  const canSend = usePermissions().can('email.send');
  const message = useQuery({
    queryKey: ['email', 'outbox', 'message', id],
    queryFn: () => unwrap(api.GET('/v1/admin/email/outbox/{id}', { params: { path: { id } } })),
  });
  const back = <Link href="/email/outbox">← Outbox</Link>;
  if (message.error !== null)
    return (
      <section className="stack">
        <h1>Email</h1>
        <EmailNav />
        {back}
        <ProblemNote error={message.error} />
      </section>
    );
  if (message.data === undefined) return <p className="loading">Loading…</p>;
  const current = message.data;
  const vars = JSON.stringify(redactValue(current.vars), null, 2);

  return (
    <section className="stack">
      <h1>Email</h1>
      <EmailNav />
      {back}
      <header className="page-header">
        <h2 className="email-subject">{current.subject || '(no subject)'}</h2>
        <MessageStatus status={current.status} held={current.held} />
        {current.status === 'failed' ? (
          <RetryMessage
            id={current.id}
            to={current.to_email}
            lastError={current.last_error}
            canSend={canSend}
            quiet={false}
          />
        ) : null}
      </header>
      <dl className="facts">
        <dt>To</dt>
        <dd>
          {current.user_id === null ? current.to_email : <UserLink id={current.user_id} label={current.to_email} />}
        </dd>
        <dt>From</dt>
        <dd>{current.from}</dd>
        <dt>Category</dt>
        <dd>{current.category}</dd>
        <dt>Made from</dt>
        <dd>
          {current.template_key === null ? (
            'its own content (no template)'
          ) : (
            <>
              <Link href={`/email/templates/${current.template_key}`}>{current.template_key}</Link> v
              {current.template_version}
            </>
          )}
          {current.campaign_id === null ? null : (
            <>
              {' '}
              for the campaign <CampaignName id={current.campaign_id} /> (
              <Link href={`/email/outbox?campaign_id=${current.campaign_id}`}>its mail</Link>)
            </>
          )}
          {current.broadcast_id === null ? null : (
            <>
              {' '}
              for <Link href={`/notifications/history/${current.broadcast_id}`}>a broadcast</Link>
            </>
          )}
        </dd>
        <dt>Attempts</dt>
        <dd>{current.attempts}</dd>
        {current.status === 'queued' ? (
          <>
            <dt>Due</dt>
            <dd>
              <Time value={current.next_attempt_at} />
              {current.held ? ' (held: its campaign is paused)' : ''}
            </dd>
          </>
        ) : null}
        <dt>Last error</dt>
        <dd>{current.last_error ?? <span className="muted">none</span>}</dd>
        <dt>Delivered by</dt>
        <dd>
          {current.transport === null
            ? 'not yet'
            : current.transport === 'outbox'
              ? 'the embedded outbox (recorded, nothing left the service)'
              : 'SMTP'}
          {current.transport_message_id === null ? null : (
            <span className="muted"> · {redactSecrets(current.transport_message_id)}</span>
          )}
        </dd>
        <dt>Queued</dt>
        <dd>
          <Time value={current.created_at} />
        </dd>
        <dt>Sent</dt>
        <dd>
          <Time value={current.sent_at} />
        </dd>
      </dl>
      <section className="stack" aria-labelledby="message-headers">
        <h3 id="message-headers">Headers</h3>
        <dl className="facts">
          {Object.entries(current.headers).map(([name, value]) => (
            <div key={name} className="email-header">
              <dt>{name}</dt>
              <dd>{redactSecrets(value)}</dd>
            </div>
          ))}
        </dl>
        <p className="hint">Signed links (the unsubscribe token, signed file URLs) are shown as [hidden].</p>
      </section>
      {current.template_key === null ? null : (
        <section className="stack" aria-labelledby="message-vars">
          <h3 id="message-vars">Variables</h3>
          <EmailText text={vars} />
        </section>
      )}
      <div className="email-columns">
        <section className="email-panel" aria-labelledby="message-html">
          <h3 id="message-html">HTML (without its own styles)</h3>
          <EmailHtml html={redactSecrets(current.html)} label="HTML body" />
        </section>
        <section className="email-panel" aria-labelledby="message-text">
          <h3 id="message-text">Text</h3>
          <EmailText text={redactSecrets(current.text)} />
        </section>
      </div>
    </section>
  );
}
