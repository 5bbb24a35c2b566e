import { type ListBody, type ListItem, unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Button, Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { useSearchState } from '../../api/search-state';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { instantOf, Time } from '../../ui/time';
import { FormDialog } from '../../ui/form-dialog';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { SiteNav } from './site-nav';

type Announcement = ListItem<ListBody<'/v1/admin/site/announcements'>>;

const PER_PAGE = 25;
const UPSERT = 'PUT /v1/admin/site/announcements';
const SEVERITIES = ['info', 'success', 'warning', 'critical'].map((id) => ({ id, label: id }));
const SURFACES = [
  { id: 'all', label: 'Landing site and portal' },
  { id: 'landing', label: 'Landing site' },
  { id: 'portal', label: 'Player portal' },
];

/** An ISO instant as a `datetime-local` value in the browser's zone. */
function localOf(iso: string | null): string {
  if (iso === null) return '';
  const date = new Date(iso);
  const offset = date.getTimezoneOffset() * 60_000;
  return new Date(date.getTime() - offset).toISOString().slice(0, 16);
}

/** Announcements: their time window, severity and surface; create and edit. */
export default function AnnouncementsPage() {
  const permissions = usePermissions();
  const [filters, setFilters] = useSearchState(['surface', 'active_now', 'page'] as const);
  const [editing, setEditing] = useState<Announcement | 'new' | undefined>();
  const page = Number(filters.page || '1');
  const query = {
    ...(filters.surface === '' ? {} : { surface: filters.surface as 'all' | 'landing' | 'portal' }),
    ...(filters.active_now === '' ? {} : { active_now: filters.active_now as 'true' | 'false' }),
    sort: 'updated_at:desc',
    page,
    per_page: PER_PAGE,
  };
  const list = usePagedQuery(['site', 'announcements', query], () =>
    unwrap(api.GET('/v1/admin/site/announcements', { params: { query } })),
  );
  const canWrite = permissions.can('site.write', 'announcements.write');

  return (
    <section className="stack">
      <h1>Site</h1>
      <SiteNav />
      <header className="page-header">
        <h2>Announcements</h2>
        <Button className="btn btn-primary" isDisabled={!canWrite} onPress={() => setEditing('new')}>
          New announcement…
        </Button>
        {canWrite ? null : <span className="hint">Needs site.write or announcements.write</span>}
      </header>
      <div className="filters">
        <ChoiceInput
          label="Surface"
          value={filters.surface}
          choices={[{ id: '', label: 'Any' }, ...SURFACES]}
          onChange={(surface) => setFilters({ surface })}
        />
        <ChoiceInput
          label="Showing now"
          value={filters.active_now}
          choices={[
            { id: '', label: 'Any' },
            { id: 'true', label: 'Showing now' },
            { id: 'false', label: 'Not showing now' },
          ]}
          onChange={(active_now) => setFilters({ active_now })}
        />
      </div>
      <PagedTable
        label="Announcements"
        list={list}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        onRowAction={(id) => setEditing(list.data?.data.find((each) => each.id === id))}
        emptyText="No announcements."
        columns={[
          { id: 'title', name: 'Title', isRowHeader: true, render: (each) => each.title },
          { id: 'severity', name: 'Severity', render: (each) => each.severity },
          { id: 'surface', name: 'Surface', render: (each) => each.surface },
          {
            id: 'window',
            name: 'Shown',
            render: (each) => (
              <>
                <Time value={each.starts_at} /> – <Time value={each.ends_at} />
              </>
            ),
          },
          {
            id: 'now',
            name: 'Now',
            render: (each) => (each.active_now ? 'showing' : each.is_active ? 'scheduled or over' : 'off'),
          },
        ]}
      />
      {editing === undefined ? null : (
        <AnnouncementDialog
          announcement={editing === 'new' ? undefined : editing}
          canWrite={canWrite}
          onClose={() => setEditing(undefined)}
        />
      )}
    </section>
  );
}

function AnnouncementDialog({
  announcement,
  canWrite,
  onClose,
}: {
  announcement: Announcement | undefined;
  canWrite: boolean;
  onClose: () => void;
}) {
  const [title, setTitle] = useState(announcement?.title ?? '');
  const [body, setBody] = useState(announcement?.body ?? '');
  const [severity, setSeverity] = useState<string>(announcement?.severity ?? 'info');
  const [surface, setSurface] = useState<string>(announcement?.surface ?? 'all');
  const [actionUrl, setActionUrl] = useState(announcement?.action_url ?? '');
  const [startsAt, setStartsAt] = useState(localOf(announcement?.starts_at ?? null));
  const [endsAt, setEndsAt] = useState(localOf(announcement?.ends_at ?? null));
  const [active, setActive] = useState(announcement?.is_active ?? true);

  return (
    <FormDialog
      title={announcement === undefined ? 'New announcement' : 'Edit announcement'}
      submitLabel={announcement === undefined ? 'Create' : 'Save'}
      wide
      canSubmit={canWrite}
      onClose={onClose}
      write={{
        call: () =>
          unwrap(
            api.PUT('/v1/admin/site/announcements', {
              body: {
                ...(announcement === undefined ? {} : { id: announcement.id }),
                title: title.trim(),
                body,
                severity: severity as 'info' | 'success' | 'warning' | 'critical',
                surface: surface as 'all' | 'landing' | 'portal',
                action_url: actionUrl.trim() === '' ? null : actionUrl.trim(),
                starts_at: instantOf(startsAt) ?? null,
                ends_at: instantOf(endsAt) ?? null,
                is_active: active,
              },
            }),
          ),
        success: announcement === undefined ? 'Announcement created' : 'Announcement saved',
        failure: 'Could not save the announcement',
        invalidates: [['site', 'announcements']],
      }}
    >
      <TextInput
        label="Title"
        name="title"
        value={title}
        onChange={setTitle}
        isRequired
        minLength={ruleOf(UPSERT, 'title').minLength}
        maxLength={ruleOf(UPSERT, 'title').maxLength}
        autoFocus
      />
      <TextInput
        label="Text"
        name="body"
        value={body}
        onChange={setBody}
        maxLength={ruleOf(UPSERT, 'body').maxLength}
        multiline
      />
      <div className="inline-form">
        <ChoiceInput label="Severity" value={severity} choices={SEVERITIES} onChange={setSeverity} />
        <ChoiceInput label="Surface" value={surface} choices={SURFACES} onChange={setSurface} />
      </div>
      <TextInput
        label="Link (optional)"
        name="action_url"
        type="url"
        value={actionUrl}
        onChange={setActionUrl}
        maxLength={ruleOf(UPSERT, 'action_url').maxLength}
      />
      <div className="inline-form">
        <TextInput
          label="Shown from (empty: at once)"
          name="starts_at"
          type="datetime-local"
          value={startsAt}
          onChange={setStartsAt}
        />
        <TextInput
          label="Shown until (empty: until turned off)"
          name="ends_at"
          type="datetime-local"
          value={endsAt}
          onChange={setEndsAt}
        />
      </div>
      <Switch className="switch switch-labelled" isSelected={active} onChange={setActive}>
        <span className="switch-track" aria-hidden="true" />
        <span>On</span>
      </Switch>
    </FormDialog>
  );
}
