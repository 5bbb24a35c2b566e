import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import type { Permissions } from '../../api/permissions';
import { describeProblem } from '../../api/problems';
import { useWrite, type WriteOptions } from '../../api/writes';
import { TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { playerName, type Ticket, ticketReference } from './tickets';

const GRANT_OPERATION = 'POST /v1/admin/billing/credits/grant';
const GRANT = { amount: ruleOf(GRANT_OPERATION, 'amount'), reason: ruleOf(GRANT_OPERATION, 'reason') };

interface Granted {
  entry_id: number;
  balance: number;
}

/** The reason the player will read in their ledger, naming the ticket. */
function reasonFor(ticket: Ticket): string {
  const reason = `Compensation for support ticket #${ticketReference(ticket.id)}: ${ticket.subject}`;
  return reason.slice(0, GRANT.reason.maxLength ?? reason.length);
}

/**
 * Credits for the ticket's player, with a reason naming the ticket. A grant above the console's
 * `credits.confirmAbove` (GET /v1/console/config) asks first, naming the amount and the player;
 * until the setting is read, every grant asks.
 */
export function Compensation({ ticket, permissions }: { ticket: Ticket; permissions: Permissions }) {
  const config = useQuery({
    queryKey: ['console', 'config'],
    queryFn: () => unwrap(api.GET('/v1/console/config')),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const confirmAbove = config.data?.credits.confirmAbove ?? 0;
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState(() => reasonFor(ticket));
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [asking, setAsking] = useState(false);
  const [granted, setGranted] = useState<Granted | undefined>();
  const player = playerName(ticket.user);
  const credits = Number(amount);

  const write: WriteOptions<void, Granted> = {
    call: () =>
      unwrap(
        api.POST('/v1/admin/billing/credits/grant', {
          body: { user_id: ticket.user.id, amount: credits, reason: reason.trim() },
        }),
      ),
    success: (result) => `${credits} credits granted to ${player} (balance ${result.balance})`,
    failure: 'Could not grant credits',
    invalidates: [['user', ticket.user.id]],
    onDone: (result) => {
      setGranted(result);
      setAmount('');
    },
  };
  const grant = useWrite(write);

  if (!permissions.can('billing.write', 'billing.grant')) {
    return (
      <section className="panel" aria-labelledby="compensation">
        <h2 id="compensation">Compensation</h2>
        <p className="hint">Granting credits needs billing.grant or billing.write.</p>
      </section>
    );
  }
  return (
    <section className="panel" aria-labelledby="compensation">
      <h2 id="compensation">Compensation</h2>
      <Form
        aria-label="Grant credits"
        onSubmit={(event) => {
          event.preventDefault();
          setIssues({});
          if (credits > confirmAbove) setAsking(true);
          else grant.mutate(undefined, { onError: (error) => setIssues(describeProblem(error).fields) });
        }}
      >
        <TextInput
          label="Credits"
          name="amount"
          type="number"
          value={amount}
          onChange={setAmount}
          isRequired
          minimum={GRANT.amount.minimum}
          maximum={GRANT.amount.maximum}
          integer={GRANT.amount.integer}
          description={config.data === undefined ? undefined : `More than ${confirmAbove} asks you to confirm.`}
          error={issues.amount}
        />
        <TextInput
          label="Reason"
          name="reason"
          value={reason}
          onChange={setReason}
          isRequired
          multiline
          minLength={GRANT.reason.minLength}
          maxLength={GRANT.reason.maxLength}
          description={`${player} sees it in their credit ledger.`}
          error={issues.reason}
        />
        <div className="button-row">
          <Button type="submit" className="btn btn-primary" isDisabled={grant.isPending}>
            {grant.isPending ? 'Granting…' : 'Grant credits'}
          </Button>
        </div>
      </Form>
      {granted === undefined ? null : (
        <p role="status">
          Granted: ledger entry {granted.entry_id}; {player} now holds {granted.balance} credits.{' '}
          {permissions.can('users.read') ? <Link href={`/users/${ticket.user.id}`}>See the player's page</Link> : null}
        </p>
      )}
      {asking ? (
        <FormDialog
          title={`Grant ${credits} credits to ${player}?`}
          submitLabel={`Grant ${credits} credits`}
          write={write}
          onClose={() => setAsking(false)}
        >
          <p>
            {credits} credits is more than {confirmAbove}, the amount above which the console asks first. {player}
            {ticket.user.email !== null && ticket.user.display_name !== null ? ` (${ticket.user.email})` : ''} will see
            this reason in their ledger:
          </p>
          <blockquote>{reason.trim()}</blockquote>
        </FormDialog>
      ) : null}
    </section>
  );
}
