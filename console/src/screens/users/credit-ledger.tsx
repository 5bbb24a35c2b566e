import { unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import type { Permissions } from '../../api/permissions';
import { describeProblem } from '../../api/problems';
import { DataTable, Pager } from '../../ui/data-table';
import { TextInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { instantOf, Time } from '../../ui/time';
import { notify } from '../../ui/toasts';

const PER_PAGE = 10;
const GRANT_OPERATION = 'POST /v1/admin/billing/credits/grant';
const GRANT = { amount: ruleOf(GRANT_OPERATION, 'amount'), reason: ruleOf(GRANT_OPERATION, 'reason') };

/** The user's credit ledger, newest first, and a grant of credits. */
export function CreditLedger({ userId, permissions }: { userId: string; permissions: Permissions }) {
  const [page, setPage] = useState(1);
  const ledger = useQuery({
    queryKey: ['user', userId, 'ledger', page],
    queryFn: () =>
      unwrap(
        api.GET('/v1/admin/billing/ledger', {
          params: { query: { user_id: userId, page, per_page: PER_PAGE, sort: 'created_at:desc' } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="credit-ledger" className="stack">
      <h2 id="credit-ledger">Credits</h2>
      {ledger.error === null ? null : <ProblemNote error={ledger.error} />}
      <DataTable
        label="Credit ledger"
        items={ledger.data?.data ?? []}
        emptyText={ledger.isPending ? 'Loading…' : 'No credit movements.'}
        columns={[
          { id: 'when', name: 'When', isRowHeader: true, render: (entry) => <Time value={entry.created_at} /> },
          { id: 'kind', name: 'Kind', render: (entry) => entry.kind },
          { id: 'amount', name: 'Amount', render: (entry) => (entry.amount > 0 ? `+${entry.amount}` : entry.amount) },
          { id: 'balance', name: 'Balance', render: (entry) => entry.balance_after },
          { id: 'reason', name: 'Reason', render: (entry) => entry.reason ?? '' },
        ]}
      />
      {ledger.data === undefined ? null : (
        <Pager page={page} perPage={PER_PAGE} total={ledger.data.meta.total ?? 0} onPage={setPage} />
      )}
      {permissions.can('billing.write') ? (
        <GrantCredits userId={userId} />
      ) : (
        <p className="hint">Granting credits needs billing.write.</p>
      )}
    </section>
  );
}

function GrantCredits({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState('');
  const [fields, setFields] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  return (
    <Form
      className="inline-form"
      aria-label="Grant credits"
      validationErrors={fields}
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setFields({});
        try {
          const expiresAt = instantOf(expires);
          await unwrap(
            api.POST('/v1/admin/billing/credits/grant', {
              body: {
                user_id: userId,
                amount: Number(amount),
                reason: reason.trim(),
                ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
              },
            }),
          );
          notify.success(`${amount} credits granted`);
          setAmount('');
          setReason('');
          setExpires('');
          await queryClient.invalidateQueries({ queryKey: ['user', userId, 'ledger'] });
        } catch (error) {
          setFields(describeProblem(error).fields);
          notify.failure('Could not grant credits', error);
        } finally {
          setBusy(false);
        }
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
        error={fields.amount}
      />
      <TextInput
        label="Reason"
        name="reason"
        value={reason}
        onChange={setReason}
        isRequired
        minLength={GRANT.reason.minLength}
        maxLength={GRANT.reason.maxLength}
        description="The player sees it in their ledger."
        error={fields.reason}
      />
      <TextInput
        label="Lapses (optional)"
        type="datetime-local"
        value={expires}
        onChange={setExpires}
        error={fields.expires_at}
      />
      <Button type="submit" className="btn btn-primary" isDisabled={busy}>
        Grant credits
      </Button>
    </Form>
  );
}
