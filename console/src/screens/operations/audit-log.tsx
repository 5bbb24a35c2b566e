import { type ListBody, type ListItem, type paths, unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Dialog, Heading, Input, Label, Modal, ModalOverlay, SearchField } from 'react-aria-components';
import { api } from '../../api/client';
import { presentValues, useSearchState } from '../../api/search-state';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { LongText } from '../../ui/long-text';
import { ActorLink, TargetName } from '../../ui/names';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { instantOf, Time } from '../../ui/time';
import { OperationsNav } from './operations-nav';

type AuditEntry = ListItem<ListBody<'/v1/admin/audit'>>;
type AuditQuery = NonNullable<paths['/v1/admin/audit']['get']['parameters']['query']>;

const PER_PAGE = 25;
const FILTERS = ['q', 'action', 'actor_id', 'target_type', 'target_id', 'from', 'to', 'sort', 'page'] as const;

/** The audit log: facets with counts to filter by, every filter the API has, and each entry's before and after. */
export default function AuditLogPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const [shown, setShown] = useState<AuditEntry | undefined>();
  const direction = filters.sort === 'created_at:asc' ? 'asc' : 'desc';
  const page = Number(filters.page || '1');
  const { page: _page, sort: _sort, from, to, ...text } = filters;
  const scope = { ...presentValues(text), ...presentValues({ from: instantOf(from) ?? '', to: instantOf(to) ?? '' }) };
  const query = { ...scope, sort: `created_at:${direction}`, page, per_page: PER_PAGE } as AuditQuery;
  const entries = usePagedQuery(['audit', 'list', query], () =>
    unwrap(api.GET('/v1/admin/audit', { params: { query } })),
  );
  const facets = useQuery({
    queryKey: ['audit', 'facets', scope],
    queryFn: () => unwrap(api.GET('/v1/admin/audit/facets', { params: { query: scope as AuditQuery } })),
    placeholderData: keepPreviousData,
  });
  const choices = (
    rows: Array<{ value: string | null; count: number; email?: string | null }> | undefined,
    any: string,
  ) => [
    { id: '', label: any },
    ...(rows ?? [])
      .filter((row) => row.value !== null)
      .map((row) => ({ id: row.value as string, label: `${row.email ?? row.value} (${row.count})` })),
  ];

  return (
    <section className="stack">
      <h1>Operations</h1>
      <OperationsNav />
      <h2>Audit log</h2>
      <form className="filters" aria-label="Filter the audit log" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field field-wide"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Search reasons and targets</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Action"
          value={filters.action}
          choices={choices(facets.data?.actions, 'Any action')}
          onChange={(action) => setFilters({ action })}
        />
        <ChoiceInput
          label="Staff member"
          value={filters.actor_id}
          choices={choices(facets.data?.actors, 'Anyone')}
          onChange={(actor_id) => setFilters({ actor_id })}
        />
        <ChoiceInput
          label="Target type"
          value={filters.target_type}
          choices={choices(facets.data?.target_types, 'Any target')}
          onChange={(target_type) => setFilters({ target_type })}
        />
        <TextInput
          label="Target id"
          value={filters.target_id}
          maxLength={200}
          onChange={(target_id) => setFilters({ target_id: target_id.trim() })}
        />
        <TextInput label="From" type="datetime-local" value={from} onChange={(value) => setFilters({ from: value })} />
        <TextInput label="Until" type="datetime-local" value={to} onChange={(value) => setFilters({ to: value })} />
      </form>
      <PagedTable
        label="Audit entries"
        list={entries}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={{ field: 'created_at', direction }}
        onSortChange={(sort) => setFilters({ sort: `created_at:${sort.direction}` })}
        onRowAction={(id) => setShown(entries.data?.data.find((entry) => entry.id === id))}
        emptyText="No entry matches these filters."
        columns={[
          {
            id: 'when',
            name: 'When',
            sortField: 'created_at',
            isRowHeader: true,
            render: (entry) => <Time value={entry.created_at} />,
          },
          {
            id: 'actor',
            name: 'Staff member',
            render: (entry) => <ActorLink id={entry.actor_id} label={entry.actor_email ?? entry.actor_name} />,
          },
          { id: 'action', name: 'Action', render: (entry) => <code>{entry.action}</code> },
          {
            id: 'target',
            name: 'Target',
            render: (entry) => <TargetName type={entry.target_type} id={entry.target_id} label={entry.target_label} />,
          },
          { id: 'reason', name: 'Reason', render: (entry) => <LongText value={entry.reason} /> },
        ]}
      />
      <AuditEntryDialog entry={shown} onClose={() => setShown(undefined)} />
    </section>
  );
}

/** One entry in full: who, when, from where, and what the write changed, before beside after. */
function AuditEntryDialog({ entry, onClose }: { entry: AuditEntry | undefined; onClose: () => void }) {
  const summary = (entry?.summary ?? {}) as Record<string, unknown>;
  const { before, after, ...rest } = summary;
  return (
    <ModalOverlay
      className="overlay"
      isOpen={entry !== undefined}
      onOpenChange={(open) => (open ? null : onClose())}
      isDismissable
    >
      <Modal className="modal modal-wide">
        <Dialog className="dialog">
          {({ close }) =>
            entry === undefined ? null : (
              <div className="stack">
                <Heading slot="title">
                  <code>{entry.action}</code>
                </Heading>
                <dl className="facts">
                  <dt>When</dt>
                  <dd>
                    <Time value={entry.created_at} />
                  </dd>
                  <dt>Staff member</dt>
                  <dd>
                    <ActorLink id={entry.actor_id} label={entry.actor_email ?? entry.actor_name} />
                  </dd>
                  <dt>Target</dt>
                  <dd>
                    {entry.target_type === null ? (
                      '—'
                    ) : (
                      <>
                        <TargetName type={entry.target_type} id={entry.target_id} label={entry.target_label} />{' '}
                        <code className="muted">{entry.target_id}</code>
                      </>
                    )}
                  </dd>
                  <dt>Reason</dt>
                  <dd className="full-text">{entry.reason ?? '—'}</dd>
                  <dt>Request</dt>
                  <dd>
                    <code>{entry.request_id ?? '—'}</code> from {entry.ip ?? 'unknown'} (
                    {entry.user_agent ?? 'unknown agent'})
                  </dd>
                </dl>
                {before === undefined && after === undefined ? null : (
                  <div className="before-after">
                    <section aria-label="Before">
                      <h3>Before</h3>
                      <pre className="json">{JSON.stringify(before ?? null, null, 2)}</pre>
                    </section>
                    <section aria-label="After">
                      <h3>After</h3>
                      <pre className="json">{JSON.stringify(after ?? null, null, 2)}</pre>
                    </section>
                  </div>
                )}
                {Object.keys(rest).length === 0 ? null : (
                  <section aria-label="Details">
                    <h3>Details</h3>
                    <pre className="json">{JSON.stringify(rest, null, 2)}</pre>
                  </section>
                )}
                <div className="dialog-actions">
                  <Button className="btn" onPress={close} autoFocus>
                    Close
                  </Button>
                </div>
              </div>
            )
          }
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
