import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { Compensation } from './compensation';
import { CloseOrReopen, ReplyForm } from './ticket-actions';
import { playerName, STATUS_LABELS, type Ticket, ticketReference } from './tickets';
import './support.css';
import { sessionStore } from '../../api/session';
import { UserLink } from '../../ui/names';

type Message = Ticket['messages'][number];
type Attachment = Message['attachments'][number];

/** One ticket: the player (a link to their page), the thread with its files, reply, close or reopen, credits. */
export default function TicketPage({ id }: { id: string }) {
  const permissions = usePermissions();
  const ticket = useQuery({
    queryKey: ['support', 'ticket', id],
    queryFn: () => unwrap(api.GET('/v1/admin/support/tickets/{id}', { params: { path: { id } } })),
  });

  if (ticket.error !== null) {
    return (
      <section className="stack">
        <Link href="/support">← Support</Link>
        <ProblemNote error={ticket.error} />
      </section>
    );
  }
  if (ticket.data === undefined) return <p className="loading">Loading…</p>;
  const current = ticket.data;
  const player = playerName(current.user);
  const canWrite = permissions.can('support.write');

  return (
    <section className="stack">
      <Link href="/support">← Support</Link>
      <header className="page-header">
        <h1>{current.subject}</h1>
        <span className={`status status-${current.status}`}>{STATUS_LABELS[current.status]}</span>
      </header>
      <dl className="facts">
        <dt>Player</dt>
        <dd>
          <Link href={`/users/${current.user.id}`}>{player}</Link>
          {current.user.display_name !== null && current.user.email !== null ? (
            <span className="muted"> · {current.user.email}</span>
          ) : null}
        </dd>
        <dt>Reference</dt>
        <dd>#{ticketReference(current.id)}</dd>
        <dt>Category</dt>
        <dd>{current.category}</dd>
        <dt>Opened</dt>
        <dd>
          <Time value={current.created_at} />
        </dd>
        <dt>Last activity</dt>
        <dd>
          <Time value={current.updated_at} />
        </dd>
        {current.status === 'closed' ? (
          <>
            <dt>Closed</dt>
            <dd>
              <Time value={current.closed_at} /> by <StaffName id={current.closed_by} />
              {current.close_reason === null ? null : <span className="muted"> · {current.close_reason}</span>}
            </dd>
          </>
        ) : null}
      </dl>
      <div className="ticket-layout">
        <section aria-labelledby="thread" className="stack">
          <h2 id="thread">Conversation</h2>
          <ol className="thread">
            {current.messages.map((message) => (
              <li key={message.id} className={`message message-${message.author}`}>
                <p className="message-meta">
                  <span className="message-author">
                    {message.author === 'player' ? (
                      player
                    ) : (
                      <>
                        <StaffName id={message.author_id} /> (staff)
                      </>
                    )}
                  </span>
                  <Time value={message.created_at} />
                </p>
                <p className="message-text">{message.message}</p>
                {message.attachments.length === 0 ? null : (
                  <ul className="attachments" aria-label="Attachments">
                    {message.attachments.map((attachment) => (
                      <li key={attachment.key}>
                        <AttachmentLink attachment={attachment} />
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ol>
          <ReplyForm ticket={current} canWrite={canWrite} />
        </section>
        <aside className="ticket-side" aria-label="Ticket actions">
          <CloseOrReopen ticket={current} canWrite={canWrite} />
          <Compensation ticket={current} permissions={permissions} />
        </aside>
      </div>
    </section>
  );
}

/** The download URL the service signed, as a plain link; the URL itself is never shown or logged. */
function AttachmentLink({ attachment }: { attachment: Attachment }) {
  const name = attachment.key.slice(attachment.key.lastIndexOf('/') + 1);
  return (
    <a href={attachment.url} target="_blank" rel="noreferrer noopener">
      {name} <span className="muted">({describeFile(attachment)})</span>
    </a>
  );
}

function describeFile(attachment: Attachment): string {
  const kind =
    attachment.content_type === 'text/plain' ? 'text' : attachment.content_type.replace(/^(image|application)\//, '');
  if (attachment.size === null) return kind.toUpperCase();
  const size =
    attachment.size < 1024
      ? `${attachment.size} B`
      : attachment.size < 1024 * 1024
        ? `${Math.round(attachment.size / 1024)} KB`
        : `${(attachment.size / (1024 * 1024)).toFixed(1)} MB`;
  return `${kind.toUpperCase()}, ${size}`;
}

/** A staff member on a ticket: "You" for the caller, else their name (a link for who may read users). */
function StaffName({ id }: { id: string | null }) {
  if (id === null) return <span>Staff</span>;
  if (id === sessionStore.get()?.subject) return <span>You</span>;
  return <UserLink id={id} naming="name" fallback="Staff" />;
}
