import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { describeSegment } from './segment';
import './notifications.css';
import { ActorLink } from '../../ui/names';

/** One broadcast: what was sent, to whom, and how its delivery stands. */
export default function BroadcastDetailPage({ id }: { id: string }) {
  const broadcast = useQuery({
    queryKey: ['notifications', 'broadcast', id],
    queryFn: () => unwrap(api.GET('/v1/admin/notifications/broadcasts/{id}', { params: { path: { id } } })),
  });
  const data = broadcast.data;
  return (
    <section className="stack">
      <p>
        <Link href="/notifications/history">← Broadcast history</Link>
      </p>
      <h1>{data?.notification?.title ?? 'Broadcast'}</h1>
      {broadcast.error === null ? null : <ProblemNote error={broadcast.error} />}
      {data === undefined ? null : (
        <>
          <dl className="facts">
            <dt>Sent</dt>
            <dd>
              <Time value={data.created_at} /> by <ActorLink id={data.created_by} naming="name" />
            </dd>
            <dt>To</dt>
            <dd>{describeSegment(data.segment)}</dd>
            <dt>Recipients</dt>
            <dd>
              {data.recipients === null ? 'Everyone, including later sign-ups' : data.recipients.toLocaleString()}
            </dd>
          </dl>
          {data.notification === null ? null : (
            <section className="card" aria-labelledby="in-app-heading">
              <h2 id="in-app-heading">In-app notification</h2>
              <dl className="facts">
                <dt>Kind</dt>
                <dd>{data.notification.kind}</dd>
                <dt>Text</dt>
                <dd>{data.notification.body ?? <span className="muted">—</span>}</dd>
                <dt>Link</dt>
                <dd>{data.notification.action_url ?? <span className="muted">—</span>}</dd>
                <dt>Shown</dt>
                <dd>
                  <Time value={data.notification.starts_at} /> – <Time value={data.notification.ends_at} />
                </dd>
                <dt>Read by</dt>
                <dd>
                  {data.notification.read_count.toLocaleString()}
                  {data.notification.audience === 'recipients' && data.recipients !== null
                    ? ` of ${data.recipients.toLocaleString()}`
                    : ''}
                </dd>
              </dl>
            </section>
          )}
          {data.email === null ? null : (
            <section className="card" aria-labelledby="email-heading">
              <h2 id="email-heading">Email</h2>
              <dl className="facts">
                <dt>Template version</dt>
                <dd>{data.email.template_version ?? '—'}</dd>
                <dt>Queued</dt>
                <dd>{data.email.queued.toLocaleString()}</dd>
                <dt>Sent</dt>
                <dd>{data.email.sent.toLocaleString()}</dd>
                <dt>Failed</dt>
                <dd>{data.email.failed.toLocaleString()}</dd>
                <dt>Skipped</dt>
                <dd>{data.email.skipped.toLocaleString()}</dd>
              </dl>
            </section>
          )}
        </>
      )}
    </section>
  );
}
