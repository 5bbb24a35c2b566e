import { unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { describeProblem } from '../../api/problems';
import { useWrite } from '../../api/writes';
import { Confirm } from '../../ui/confirm';
import { TextInput } from '../../ui/fields';
import { playerName, type Ticket } from './tickets';

const REPLY = ruleOf('POST /v1/admin/support/tickets/{id}/reply', 'message');
const CLOSE_REASON = ruleOf('POST /v1/admin/support/tickets/{id}/close', 'reason');
const REOPEN_REASON = ruleOf('POST /v1/admin/support/tickets/{id}/reopen', 'reason');
/** A write to a ticket changes the ticket and the queue. */
const CHANGED = [['support']];

/** Staff's answer, stored on the ticket and mailed to the player's address. */
export function ReplyForm({ ticket, canWrite }: { ticket: Ticket; canWrite: boolean }) {
  const [message, setMessage] = useState('');
  const [issues, setIssues] = useState<Record<string, string>>({});
  const email = ticket.user.email;
  const reply = useWrite<string, Ticket>({
    call: (text) =>
      unwrap(
        api.POST('/v1/admin/support/tickets/{id}/reply', {
          params: { path: { id: ticket.id } },
          body: { message: text },
        }),
      ),
    success: email === null ? 'Reply stored (the player has no email address)' : `Reply sent to ${email}`,
    failure: 'Could not send the reply',
    invalidates: CHANGED,
    onDone: () => setMessage(''),
  });
  const closed = ticket.status === 'closed';
  const why = !canWrite ? 'Replying needs support.write.' : closed ? 'Reopen the ticket to reply.' : undefined;

  return (
    <Form
      className="panel"
      aria-label="Reply"
      onSubmit={(event) => {
        event.preventDefault();
        setIssues({});
        reply.mutate(message.trim(), { onError: (error) => setIssues(describeProblem(error).fields) });
      }}
    >
      <TextInput
        label="Reply"
        name="message"
        value={message}
        onChange={setMessage}
        multiline
        isRequired={REPLY.required}
        minLength={REPLY.minLength}
        maxLength={REPLY.maxLength}
        description={
          email === null
            ? `${playerName(ticket.user)} has no email address: the reply shows in their account only.`
            : `Mailed to ${email}; it also shows in the player's account.`
        }
        error={issues.message}
      />
      <div className="button-row">
        <Button
          type="submit"
          className="btn btn-primary"
          isDisabled={why !== undefined || reply.isPending}
          aria-description={why}
        >
          {reply.isPending ? 'Sending…' : 'Send reply'}
        </Button>
        {why === undefined ? null : <span className="hint">{why}</span>}
      </div>
    </Form>
  );
}

/** Close an open or answered ticket, or reopen a closed one; each with an optional reason for the audit log. */
export function CloseOrReopen({ ticket, canWrite }: { ticket: Ticket; canWrite: boolean }) {
  const closed = ticket.status === 'closed';
  const change = useWrite<string, Ticket>({
    call: (reason) => {
      const options = {
        params: { path: { id: ticket.id } },
        body: reason === '' ? {} : { reason },
      };
      return unwrap(
        closed
          ? api.POST('/v1/admin/support/tickets/{id}/reopen', options)
          : api.POST('/v1/admin/support/tickets/{id}/close', options),
      );
    },
    success: closed ? 'Ticket reopened' : 'Ticket closed',
    failure: closed ? 'Could not reopen the ticket' : 'Could not close the ticket',
    invalidates: CHANGED,
  });
  const player = playerName(ticket.user);
  return (
    <section className="panel" aria-labelledby="ticket-state">
      <h2 id="ticket-state">{closed ? 'Closed' : 'Open'}</h2>
      {closed ? (
        <Confirm
          trigger="Reopen…"
          isDisabled={!canWrite}
          disabledReason={canWrite ? undefined : 'Needs support.write'}
          title="Reopen this ticket?"
          consequence={<p>It goes back to the queue as waiting on staff, and {player} can write to it again.</p>}
          confirmLabel="Reopen"
          reason={{ ...REOPEN_REASON, required: false }}
          onConfirm={(reason) => change.mutateAsync(reason)}
        />
      ) : (
        <Confirm
          trigger="Close…"
          isDisabled={!canWrite}
          disabledReason={canWrite ? undefined : 'Needs support.write'}
          title="Close this ticket?"
          consequence={
            <p>
              {player} can no longer write to it (they can open a new one). Nothing is mailed. The reason stays with the
              ticket and is never shown to the player.
            </p>
          }
          confirmLabel="Close ticket"
          reason={{ ...CLOSE_REASON, required: false }}
          onConfirm={(reason) => change.mutateAsync(reason)}
        />
      )}
    </section>
  );
}
