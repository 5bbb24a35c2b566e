import { type ListBody, type ListItem, type operations, unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Input, Label, SearchField } from 'react-aria-components';
import { Link } from 'wouter';
import { api } from '../../../api/client';
import { ruleOf } from '../../../api/field-rules';
import { usePermissions } from '../../../api/permissions';
import { presentValues, useSearchState } from '../../../api/search-state';
import { Confirm } from '../../../ui/confirm';
import type { Sort } from '../../../ui/data-table';
import { ChoiceInput, TextInput } from '../../../ui/fields';
import { FormDialog } from '../../../ui/form-dialog';
import { PagedTable, usePagedQuery } from '../../../ui/paged-table';
import { Time } from '../../../ui/time';
import { EmailNav } from '../email-nav';

type Suppression = ListItem<ListBody<'/v1/admin/email/suppressions'>> & { id: string };
type SuppressionsQuery = NonNullable<operations['listEmailSuppressions']['parameters']['query']>;

const FILTERS = ['q', 'reason', 'sort', 'page'] as const;
const PER_PAGE = 25;
const ADD = 'POST /v1/admin/email/suppressions';
const NEEDS_WRITE = 'Needs email.write';
const REASONS = [
  { id: 'unsubscribed', label: 'Unsubscribed (the person asked)' },
  { id: 'bounced', label: 'Bounced' },
  { id: 'complained', label: 'Complained (marked as spam)' },
  { id: 'manual', label: 'Added by staff' },
];
const SOURCES: Record<string, string> = {
  one_click: 'one-click unsubscribe',
  link: 'unsubscribe link',
  staff: 'staff',
  smtp: 'the mail server',
};

/** Addresses that get no marketing mail: why and since when; add one, or let mail go to one again. */
export default function SuppressionsPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const canWrite = usePermissions().can('email.write');
  const page = Number(filters.page || '1');
  const [sortField, sortDirection] = (filters.sort || 'created_at:desc').split(':');
  const sort: Sort = { field: sortField ?? 'created_at', direction: sortDirection === 'asc' ? 'asc' : 'desc' };
  const query = {
    ...presentValues({ q: filters.q, reason: filters.reason, sort: filters.sort }),
    page,
    per_page: PER_PAGE,
  } as SuppressionsQuery;
  const suppressions = usePagedQuery(['email', 'suppressions', query], async () => {
    const answer = await unwrap(api.GET('/v1/admin/email/suppressions', { params: { query } }));
    return { ...answer, data: answer.data.map((row) => ({ ...row, id: row.email })) };
  });
  const filtered = filters.q !== '' || filters.reason !== '';

  return (
    <section className="stack">
      <h1>Email</h1>
      <EmailNav />
      <header className="page-header">
        <h2>Suppressions</h2>
        <AddSuppression canWrite={canWrite} />
      </header>
      <p className="hint">These addresses get no marketing mail; receipts and security notices still reach them.</p>
      <form className="filters" aria-label="Filter suppressions" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Address contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Reason"
          value={filters.reason}
          choices={[{ id: '', label: 'Any' }, ...REASONS]}
          onChange={(reason) => setFilters({ reason })}
        />
      </form>
      <PagedTable<Suppression>
        label="Suppressed addresses"
        list={suppressions}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={sort}
        onSortChange={(next) => setFilters({ sort: `${next.field}:${next.direction}` })}
        emptyText={filtered ? 'No suppressed address matches these filters.' : 'No address is suppressed.'}
        columns={[
          { id: 'email', name: 'Address', sortField: 'email', isRowHeader: true, render: (row) => row.email },
          { id: 'reason', name: 'Reason', render: (row) => row.reason },
          {
            id: 'source',
            name: 'Through',
            render: (row) => (
              <>
                {SOURCES[row.source] ?? row.source}
                {row.message_id === null ? null : (
                  <>
                    {' '}
                    (<Link href={`/email/outbox/${row.message_id}`}>the message</Link>)
                  </>
                )}
              </>
            ),
          },
          { id: 'since', name: 'Since', sortField: 'created_at', render: (row) => <Time value={row.created_at} /> },
          {
            id: 'actions',
            name: 'Actions',
            render: (row) => <RemoveSuppression suppression={row} canWrite={canWrite} />,
          },
        ]}
      />
    </section>
  );
}

function AddSuppression({ canWrite }: { canWrite: boolean }) {
  const [email, setEmail] = useState('');
  const [reason, setReason] = useState('manual');
  const [note, setNote] = useState('');
  const rule = (field: string) => ruleOf(ADD, field);
  return (
    <FormDialog<Suppression>
      title="Suppress an address"
      submitLabel="Suppress"
      trigger={{
        label: 'Suppress an address…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setEmail('');
        setReason('manual');
        setNote('');
      }}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/email/suppressions', {
              body: {
                email: email.trim(),
                reason: reason as 'manual' | 'bounced' | 'complained',
                ...(note.trim() === '' ? {} : { note: note.trim() }),
              },
            }),
          ).then((row) => ({ ...row, id: row.email })),
        // An address already suppressed answers with its row as it was: older, or for another reason.
        success: (row) =>
          row.source === 'staff' && row.reason === reason && Date.now() - Date.parse(row.created_at) < 60_000
            ? `${row.email} gets no marketing mail from now on`
            : `${row.email} was already suppressed (${row.reason}): nothing changed`,
        failure: 'Could not suppress the address',
        invalidates: [['email', 'suppressions']],
      }}
    >
      <TextInput
        label="Email address"
        name="email"
        type="email"
        value={email}
        onChange={setEmail}
        isRequired
        maxLength={rule('email').maxLength}
        autoFocus
      />
      <ChoiceInput
        label="Reason"
        value={reason}
        choices={REASONS.filter((each) => each.id !== 'unsubscribed')}
        onChange={setReason}
      />
      <TextInput
        label="Note (optional)"
        name="note"
        value={note}
        onChange={setNote}
        minLength={rule('note').minLength}
        maxLength={rule('note').maxLength}
        description="Kept in the audit log."
        multiline
      />
    </FormDialog>
  );
}

function RemoveSuppression({ suppression, canWrite }: { suppression: Suppression; canWrite: boolean }) {
  const asked = suppression.reason === 'unsubscribed';
  return (
    <Confirm
      trigger="Remove…"
      triggerClassName="btn btn-quiet"
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      destructive={asked}
      title={`Let marketing mail go to ${suppression.email} again?`}
      consequence={
        asked
          ? `${suppression.email} unsubscribed: the person asked for no mail. Removing it means campaigns reach ` +
            'them again; do it only if they asked to be subscribed again.'
          : `The address leaves the suppression list (${suppression.reason}), and campaigns reach it again.`
      }
      confirmLabel="Remove suppression"
      reason={{ required: false, integer: false, minLength: 1, maxLength: 300 }}
      write={{
        call: (why) =>
          unwrap(
            api.DELETE('/v1/admin/email/suppressions/{email}', {
              params: { path: { email: suppression.email }, query: why === '' ? {} : { reason: why } },
            }),
          ),
        success: `${suppression.email} can get marketing mail again`,
        failure: 'Could not remove the suppression',
        invalidates: [['email', 'suppressions']],
      }}
    />
  );
}
