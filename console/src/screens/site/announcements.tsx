import { type ListBody, type ListItem, unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Dialog, Form, Heading, Modal, ModalOverlay, Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { describeProblem } from '../../api/problems';
import { useSearchState } from '../../api/search-state';
import { DataTable, Pager } from '../../ui/data-table';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { instantOf, Time } from '../../ui/time';
import { notify } from '../../ui/toasts';
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
  const list = useQuery({
    queryKey: ['site', 'announcements', query],
    queryFn: () => unwrap(api.GET('/v1/admin/site/announcements', { params: { query } })),
    placeholderData: keepPreviousData,
  });
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
      {list.error === null ? null : <ProblemNote error={list.error} />}
      <DataTable
        label="Announcements"
        items={list.data?.data ?? []}
        onRowAction={(id) => setEditing(list.data?.data.find((each) => each.id === id))}
        emptyText={list.isPending ? 'Loading…' : 'No announcements.'}
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
      {list.data === undefined ? null : (
        <Pager
          page={page}
          perPage={PER_PAGE}
          total={list.data.meta.total ?? 0}
          onPage={(next) => setFilters({ page: String(next) })}
        />
      )}
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
  const queryClient = useQueryClient();
  const [title, setTitle] = useState(announcement?.title ?? '');
  const [body, setBody] = useState(announcement?.body ?? '');
  const [severity, setSeverity] = useState<string>(announcement?.severity ?? 'info');
  const [surface, setSurface] = useState<string>(announcement?.surface ?? 'all');
  const [actionUrl, setActionUrl] = useState(announcement?.action_url ?? '');
  const [startsAt, setStartsAt] = useState(localOf(announcement?.starts_at ?? null));
  const [endsAt, setEndsAt] = useState(localOf(announcement?.ends_at ?? null));
  const [active, setActive] = useState(announcement?.is_active ?? true);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  return (
    <ModalOverlay className="overlay" isOpen onOpenChange={(open) => (open ? null : onClose())} isDismissable={!busy}>
      <Modal className="modal modal-wide">
        <Dialog className="dialog">
          <Form
            validationErrors={fields}
            onSubmit={async (event) => {
              event.preventDefault();
              setBusy(true);
              setFields({});
              try {
                await unwrap(
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
                );
                notify.success(announcement === undefined ? 'Announcement created' : 'Announcement saved');
                await queryClient.invalidateQueries({ queryKey: ['site', 'announcements'] });
                onClose();
              } catch (error) {
                setFields(describeProblem(error).fields);
                notify.failure('Could not save the announcement', error);
              } finally {
                setBusy(false);
              }
            }}
          >
            <Heading slot="title">{announcement === undefined ? 'New announcement' : 'Edit announcement'}</Heading>
            <TextInput
              label="Title"
              name="title"
              value={title}
              onChange={setTitle}
              isRequired
              minLength={ruleOf(UPSERT, 'title').minLength}
              maxLength={ruleOf(UPSERT, 'title').maxLength}
              error={fields.title}
              autoFocus
            />
            <TextInput
              label="Text"
              name="body"
              value={body}
              onChange={setBody}
              maxLength={ruleOf(UPSERT, 'body').maxLength}
              multiline
              error={fields.body}
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
              error={fields.action_url}
            />
            <div className="inline-form">
              <TextInput
                label="Shown from (empty: at once)"
                type="datetime-local"
                value={startsAt}
                onChange={setStartsAt}
                error={fields.starts_at}
              />
              <TextInput
                label="Shown until (empty: until turned off)"
                type="datetime-local"
                value={endsAt}
                onChange={setEndsAt}
                error={fields.ends_at}
              />
            </div>
            <Switch className="switch switch-labelled" isSelected={active} onChange={setActive}>
              <span className="switch-track" aria-hidden="true" />
              <span>On</span>
            </Switch>
            <div className="dialog-actions">
              <Button className="btn" onPress={onClose} isDisabled={busy}>
                Cancel
              </Button>
              <Button type="submit" className="btn btn-primary" isDisabled={busy || !canWrite}>
                {announcement === undefined ? 'Create' : 'Save'}
              </Button>
            </div>
          </Form>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
