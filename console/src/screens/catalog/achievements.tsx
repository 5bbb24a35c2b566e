import { isPlatformApiError, type ListBody, type ListItem, type operations, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Input, Label, SearchField, Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { describeProblem } from '../../api/problems';
import { presentValues, useSearchState } from '../../api/search-state';
import { Confirm } from '../../ui/confirm';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { CatalogNav } from './catalog-nav';

type Achievement = ListItem<ListBody<'/v1/admin/catalog/achievements'>>;
type AchievementsQuery = NonNullable<operations['listCatalogAchievements']['parameters']['query']>;

const PER_PAGE = 25;
const CREATE = 'POST /v1/admin/catalog/achievements';
const NEEDS_WRITE = 'Needs content.write';
/** The delete's audit reason (a query parameter, so not among the body rules). */
const DELETE_REASON = { required: false, integer: false, maxLength: 300 };
const credits = (amount: number) => `${amount.toLocaleString('en-GB')} credit${amount === 1 ? '' : 's'}`;

/** A taken key (409, `details.key`) shows beneath the key field. */
function achievementIssues(error: unknown): Record<string, string> {
  const { message, fields } = describeProblem(error);
  if (isPlatformApiError(error) && error.code === 'conflict') {
    const details = (error.details ?? {}) as { key?: unknown };
    return typeof details.key === 'string'
      ? { key: `The key ${details.key} is taken by another achievement.` }
      : { '': message };
  }
  return fields;
}

/** Achievement definitions: find, create, edit, delete. */
export default function AchievementsPage() {
  const [filters, setFilters] = useSearchState(['q', 'is_active', 'sort', 'page'] as const);
  const canWrite = usePermissions().can('content.write');
  const [editing, setEditing] = useState<Achievement | 'new' | undefined>();
  const page = Number(filters.page || '1');
  const [field, direction] = (filters.sort || 'sort_order:asc').split(':') as [string, 'asc' | 'desc'];
  const query = {
    ...presentValues({ q: filters.q, is_active: filters.is_active }),
    sort: `${field}:${direction}`,
    page,
    per_page: PER_PAGE,
  } as AchievementsQuery;
  const achievements = usePagedQuery(['catalog', 'achievements', query], () =>
    unwrap(api.GET('/v1/admin/catalog/achievements', { params: { query } })),
  );

  return (
    <section className="stack">
      <h1>Catalog</h1>
      <CatalogNav />
      <header className="page-header">
        <h2>Achievements</h2>
        <Button className="btn btn-primary" isDisabled={!canWrite} onPress={() => setEditing('new')}>
          New achievement…
        </Button>
        {canWrite ? null : <span className="hint">{NEEDS_WRITE}</span>}
      </header>
      <form className="filters" aria-label="Filter achievements" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Key or name contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Active"
          value={filters.is_active}
          choices={[
            { id: '', label: 'Any' },
            { id: 'true', label: 'Active' },
            { id: 'false', label: 'Inactive' },
          ]}
          onChange={(is_active) => setFilters({ is_active })}
        />
      </form>
      <PagedTable<Achievement>
        label="Achievements"
        list={achievements}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={{ field, direction }}
        onSortChange={(sort) => setFilters({ sort: `${sort.field}:${sort.direction}` })}
        emptyText={filters.q === '' && filters.is_active === '' ? 'No achievements yet.' : 'No achievement matches.'}
        columns={[
          { id: 'name', name: 'Name', sortField: 'name', isRowHeader: true, render: (each) => each.name },
          { id: 'key', name: 'Key', render: (each) => <code>{each.key}</code> },
          { id: 'reward', name: 'Reward', render: (each) => credits(each.reward_credits) },
          { id: 'active', name: 'Active', render: (each) => (each.is_active ? 'active' : 'inactive') },
          { id: 'order', name: 'Order', sortField: 'sort_order', render: (each) => each.sort_order },
          {
            id: 'created',
            name: 'Created',
            sortField: 'created_at',
            render: (each) => <Time value={each.created_at} />,
          },
          {
            id: 'actions',
            name: 'Actions',
            render: (each) => (
              <span className="button-row">
                <Button className="btn btn-quiet" isDisabled={!canWrite} onPress={() => setEditing(each)}>
                  Edit…
                </Button>
                <DeleteAchievement achievement={each} canWrite={canWrite} />
              </span>
            ),
          },
        ]}
      />
      {editing === 'new' ? <CreateAchievement onClose={() => setEditing(undefined)} /> : null}
      {editing === undefined || editing === 'new' ? null : (
        <EditAchievement id={editing.id} onClose={() => setEditing(undefined)} />
      )}
    </section>
  );
}

interface AchievementDraft {
  name: string;
  description: string;
  icon_path: string;
  reward_credits: string;
  is_active: boolean;
  sort_order: string;
}

const draftOf = (achievement?: Achievement): AchievementDraft => ({
  name: achievement?.name ?? '',
  description: achievement?.description ?? '',
  icon_path: achievement?.icon_path ?? '',
  reward_credits: String(achievement?.reward_credits ?? 0),
  is_active: achievement?.is_active ?? true,
  sort_order: String(achievement?.sort_order ?? 0),
});

/** The fields both forms share, bound by the create operation's rules. */
function AchievementFields({
  draft,
  onChange,
  autoFocus,
}: {
  draft: AchievementDraft;
  onChange: (draft: AchievementDraft) => void;
  autoFocus: boolean;
}) {
  const rule = (field: string) => ruleOf(CREATE, field);
  const set =
    <Key extends keyof AchievementDraft>(key: Key) =>
    (value: AchievementDraft[Key]) =>
      onChange({ ...draft, [key]: value });
  return (
    <>
      <TextInput
        label="Name"
        name="name"
        value={draft.name}
        onChange={set('name')}
        isRequired
        minLength={rule('name').minLength}
        maxLength={rule('name').maxLength}
        autoFocus={autoFocus}
      />
      <TextInput
        label="Description"
        name="description"
        value={draft.description}
        onChange={set('description')}
        maxLength={rule('description').maxLength}
        multiline
      />
      <TextInput
        label="Icon"
        name="icon_path"
        value={draft.icon_path}
        onChange={set('icon_path')}
        maxLength={rule('icon_path').maxLength}
        description="A path under the site's assets (icons/win.png) or an http(s) address."
      />
      <div className="inline-form">
        <TextInput
          label="Reward (credits)"
          name="reward_credits"
          type="number"
          integer
          value={draft.reward_credits}
          onChange={set('reward_credits')}
          isRequired
          minimum={rule('reward_credits').minimum}
          maximum={rule('reward_credits').maximum}
        />
        <TextInput
          label="Order"
          name="sort_order"
          type="number"
          integer
          value={draft.sort_order}
          onChange={set('sort_order')}
          isRequired
          minimum={rule('sort_order').minimum}
          maximum={rule('sort_order').maximum}
          description="Lower comes first."
        />
      </div>
      <Switch className="switch switch-labelled" isSelected={draft.is_active} onChange={set('is_active')}>
        <span className="switch-track" aria-hidden="true" />
        <span>Active: players can earn it</span>
      </Switch>
    </>
  );
}

function CreateAchievement({ onClose }: { onClose: () => void }) {
  const [key, setKey] = useState('');
  const [draft, setDraft] = useState(draftOf());
  const keyRule = ruleOf(CREATE, 'key');
  return (
    <FormDialog
      title="New achievement"
      submitLabel="Create achievement"
      wide
      onClose={onClose}
      issuesOf={achievementIssues}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/catalog/achievements', {
              body: {
                key: key.trim(),
                name: draft.name.trim(),
                ...(draft.description.trim() === '' ? {} : { description: draft.description.trim() }),
                ...(draft.icon_path.trim() === '' ? {} : { icon_path: draft.icon_path.trim() }),
                reward_credits: Number(draft.reward_credits),
                is_active: draft.is_active,
                sort_order: Number(draft.sort_order),
              },
            }),
          ),
        success: `Achievement ${draft.name.trim()} created`,
        failure: 'Could not create the achievement',
        invalidates: [['catalog', 'achievements']],
      }}
    >
      <TextInput
        label="Key"
        name="key"
        value={key}
        onChange={setKey}
        isRequired
        pattern={{
          source: keyRule.pattern ?? '[a-z][a-z0-9_.-]{0,63}',
          hint: 'Starts with a lower-case letter; then letters, digits, _ . or -, at most 64',
        }}
        description="How games award it. It cannot change once created."
        autoFocus
      />
      <AchievementFields draft={draft} onChange={setDraft} autoFocus={false} />
    </FormDialog>
  );
}

/** The edit starts from the stored definition (read when it opens), and sends only what changed. */
function EditAchievement({ id, onClose }: { id: string; onClose: () => void }) {
  const stored = useQuery({
    queryKey: ['catalog', 'achievements', 'one', id],
    queryFn: () => unwrap(api.GET('/v1/admin/catalog/achievements/{id}', { params: { path: { id } } })),
    staleTime: 0,
  });
  if (stored.data === undefined) return stored.error === null ? null : <ProblemNote error={stored.error} />;
  return <EditAchievementForm achievement={stored.data} onClose={onClose} />;
}

function EditAchievementForm({ achievement, onClose }: { achievement: Achievement; onClose: () => void }) {
  const [draft, setDraft] = useState(draftOf(achievement));
  const before = draftOf(achievement);
  const changes: Record<string, unknown> = {};
  for (const field of ['name', 'description', 'icon_path'] as const) {
    const value = draft[field].trim();
    if (value !== before[field]) changes[field] = value === '' && field !== 'name' ? null : value;
  }
  for (const field of ['reward_credits', 'sort_order'] as const)
    if (draft[field] !== before[field]) changes[field] = Number(draft[field]);
  if (draft.is_active !== before.is_active) changes.is_active = draft.is_active;

  return (
    <FormDialog
      title={`Edit ${achievement.name}`}
      submitLabel="Save changes"
      wide
      onClose={onClose}
      canSubmit={Object.keys(changes).length > 0}
      write={{
        call: () =>
          unwrap(
            api.PATCH('/v1/admin/catalog/achievements/{id}', {
              params: { path: { id: achievement.id } },
              body: changes,
            }),
          ),
        success: `${draft.name.trim()} saved`,
        failure: 'Could not save the achievement',
        invalidates: [['catalog', 'achievements']],
      }}
    >
      <p>
        Key <code>{achievement.key}</code> (it cannot change).
      </p>
      <AchievementFields draft={draft} onChange={setDraft} autoFocus />
    </FormDialog>
  );
}

function DeleteAchievement({ achievement, canWrite }: { achievement: Achievement; canWrite: boolean }) {
  return (
    <Confirm
      trigger="Delete…"
      destructive
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      title={`Delete the achievement ${achievement.name}?`}
      consequence={
        <p>
          The definition <code>{achievement.key}</code> goes away with its name, description, icon and its reward of{' '}
          {credits(achievement.reward_credits)}: a game that awards this key finds nothing to award. To stop players
          earning it but keep it, make it inactive instead. This cannot be undone.
        </p>
      }
      confirmLabel="Delete achievement"
      reason={DELETE_REASON}
      write={{
        call: (reason) =>
          unwrap(
            api.DELETE('/v1/admin/catalog/achievements/{id}', {
              params: { path: { id: achievement.id }, query: reason === '' ? {} : { reason } },
            }),
          ),
        success: `${achievement.name} deleted`,
        failure: 'Could not delete the achievement',
        invalidates: [['catalog', 'achievements']],
      }}
    />
  );
}
