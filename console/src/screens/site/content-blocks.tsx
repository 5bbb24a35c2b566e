import { type ListBody, type ListItem, unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { presentValues, useSearchState } from '../../api/search-state';
import { useWrite } from '../../api/writes';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { Time } from '../../ui/time';
import { type Draft, DraftFields } from './draft-fields';
import { SiteNav } from './site-nav';

type Block = ListItem<ListBody<'/v1/admin/site/content-blocks'>>;
type Status = 'draft' | 'published' | 'archived';

const PER_PAGE = 25;
const UPSERT = 'PUT /v1/admin/site/content-blocks';
const SURFACES = [
  { id: 'landing', label: 'Landing site' },
  { id: 'portal', label: 'Player portal' },
];
/** What each status change does, as the confirmation says it. */
const STATUS_ACTIONS: Record<Status, string> = {
  published: 'Publish',
  archived: 'Archive',
  draft: 'Unpublish',
};

/** Content blocks per surface and locale: their drafts, and publishing, archiving and unpublishing. */
export default function ContentBlocksPage() {
  const permissions = usePermissions();
  const canWrite = permissions.can('content.write');
  const [filters, setFilters] = useSearchState(['surface', 'locale', 'status', 'page'] as const);
  const [editing, setEditing] = useState<Block | 'new' | undefined>();
  const page = Number(filters.page || '1');
  const query = {
    ...(presentValues({ surface: filters.surface, locale: filters.locale, status: filters.status }) as {
      surface?: 'landing' | 'portal';
      locale?: string;
      status?: Status;
    }),
    sort: 'sortOrder:asc',
    page,
    per_page: PER_PAGE,
  };
  const blocks = usePagedQuery(['site', 'content-blocks', query], () =>
    unwrap(api.GET('/v1/admin/site/content-blocks', { params: { query } })),
  );

  return (
    <section className="stack">
      <h1>Site</h1>
      <SiteNav />
      <header className="page-header">
        <h2>Content blocks</h2>
        <Button className="btn btn-primary" isDisabled={!canWrite} onPress={() => setEditing('new')}>
          New block…
        </Button>
        {canWrite ? null : <span className="hint">Needs content.write</span>}
      </header>
      <div className="filters">
        <ChoiceInput
          label="Surface"
          value={filters.surface}
          choices={[{ id: '', label: 'Any' }, ...SURFACES]}
          onChange={(surface) => setFilters({ surface })}
        />
        <TextInput
          label="Locale"
          value={filters.locale}
          maxLength={16}
          onChange={(locale) => setFilters({ locale: locale.trim() })}
        />
        <ChoiceInput
          label="Status"
          value={filters.status}
          choices={[
            { id: '', label: 'Any' },
            ...(['draft', 'published', 'archived'] as const).map((id) => ({ id, label: id })),
          ]}
          onChange={(status) => setFilters({ status })}
        />
      </div>
      <PagedTable
        label="Content blocks"
        list={blocks}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        onRowAction={(id) => setEditing(blocks.data?.data.find((block) => block.id === id))}
        emptyText="No content blocks."
        columns={[
          { id: 'slot', name: 'Slot', isRowHeader: true, render: (block) => <code>{block.slot}</code> },
          { id: 'surface', name: 'Surface', render: (block) => block.surface },
          { id: 'locale', name: 'Locale', render: (block) => block.locale },
          {
            id: 'status',
            name: 'Status',
            render: (block) => `${block.status}${block.hasUnpublishedChanges ? ' (unpublished changes)' : ''}`,
          },
          { id: 'published', name: 'Published', render: (block) => <Time value={block.publishedAt} /> },
          {
            id: 'actions',
            name: 'Status change',
            render: (block) => <StatusButtons block={block} canWrite={canWrite} />,
          },
        ]}
      />
      {editing === undefined ? null : (
        <BlockDialog
          block={editing === 'new' ? undefined : editing}
          canWrite={canWrite}
          onClose={() => setEditing(undefined)}
        />
      )}
    </section>
  );
}

function StatusButtons({ block, canWrite }: { block: Block; canWrite: boolean }) {
  const change = useWrite({
    call: (status: Status) =>
      unwrap(
        api.POST('/v1/admin/site/content-blocks/{id}/status', { params: { path: { id: block.id } }, body: { status } }),
      ),
    success: (_block, status) => `${block.slot}: ${status}`,
    failure: `Could not change ${block.slot}`,
    invalidates: [['site', 'content-blocks']],
  });
  const next = (['published', 'archived', 'draft'] as const).filter(
    (status) => status !== block.status || (status === 'published' && block.hasUnpublishedChanges),
  );
  return (
    <span className="button-row">
      {next.map((status) => (
        <Button
          key={status}
          className="btn btn-quiet"
          isDisabled={!canWrite || change.isPending}
          onPress={() => change.mutate(status)}
        >
          {STATUS_ACTIONS[status]}
        </Button>
      ))}
    </span>
  );
}

function BlockDialog({
  block,
  canWrite,
  onClose,
}: {
  block: Block | undefined;
  canWrite: boolean;
  onClose: () => void;
}) {
  const [surface, setSurface] = useState<string>(block?.surface ?? 'landing');
  const [slot, setSlot] = useState(block?.slot ?? '');
  const [locale, setLocale] = useState(block?.locale ?? 'en');
  const [sortOrder, setSortOrder] = useState(String(block?.sortOrder ?? 0));
  const [draft, setDraft] = useState<Draft>((block?.draft as Draft | undefined) ?? { title: '' });
  const slotRule = ruleOf(UPSERT, 'slot');

  return (
    <FormDialog
      title={block === undefined ? 'New content block' : `Block ${block.slot}`}
      submitLabel="Save draft"
      wide
      canSubmit={canWrite}
      onClose={onClose}
      write={{
        call: () =>
          unwrap(
            api.PUT('/v1/admin/site/content-blocks', {
              body: {
                surface: surface as 'landing' | 'portal',
                slot: slot.trim(),
                locale: locale.trim(),
                draft,
                sortOrder: Number(sortOrder),
              },
            }),
          ),
        success: `Block ${slot.trim()} saved as a draft`,
        failure: 'Could not save the block',
        invalidates: [['site', 'content-blocks']],
      }}
    >
      <div className="inline-form">
        <ChoiceInput label="Surface" value={surface} choices={SURFACES} onChange={setSurface} />
        <TextInput
          label="Slot"
          name="slot"
          value={slot}
          onChange={setSlot}
          isRequired
          pattern={
            slotRule.pattern === undefined
              ? undefined
              : { source: slotRule.pattern, hint: 'Lower-case letters, digits, _ . - ; starting with a letter.' }
          }
        />
        <TextInput
          label="Locale"
          name="locale"
          value={locale}
          onChange={setLocale}
          maxLength={ruleOf(UPSERT, 'locale').maxLength}
        />
        <TextInput
          label="Order"
          name="sortOrder"
          type="number"
          value={sortOrder}
          onChange={setSortOrder}
          minimum={ruleOf(UPSERT, 'sortOrder').minimum}
          maximum={ruleOf(UPSERT, 'sortOrder').maximum}
          integer={ruleOf(UPSERT, 'sortOrder').integer}
        />
      </div>
      <h3>Draft</h3>
      <DraftFields known={[]} draft={draft} onChange={setDraft} isReadOnly={!canWrite} />
      <p className="hint">Saving keeps it a draft (upserted by surface, slot and locale); publish it from the list.</p>
    </FormDialog>
  );
}
