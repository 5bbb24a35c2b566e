import { unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { useWrite } from '../../api/writes';
import { Confirm } from '../../ui/confirm';
import { DataTable } from '../../ui/data-table';
import { LongText } from '../../ui/long-text';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { type Draft, DraftFields } from './draft-fields';
import { SECTIONS_QUERY_KEY, type Section, useSections } from './settings-sections';

const show = (value: unknown) =>
  value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value);

/** One settings section: its draft edited field by field, compared with what is live, published, and rolled back. */
export default function SettingsSectionPage({ name }: { name: string }) {
  const sections = useSections();
  if (sections.error !== null) return <ProblemNote error={sections.error} />;
  const section = sections.data?.data.find((each) => each.section === name);
  if (sections.data === undefined) return <p className="loading">Loading…</p>;
  if (section === undefined)
    return (
      <section className="stack">
        <Link href="/site">← Site</Link>
        <p>There is no settings section named {name}.</p>
      </section>
    );
  return (
    <SectionEditor key={`${section.draft_updated_at ?? ''}-${section.published_version ?? ''}`} section={section} />
  );
}

function SectionEditor({ section }: { section: Section }) {
  const permissions = usePermissions();
  const canWrite = permissions.can(section.write_permission);
  const [draft, setDraft] = useState<Draft>(section.draft as Draft);
  const path = { params: { path: { section: section.section } } };
  const live = (section.published_value ?? {}) as Draft;
  const saved = JSON.stringify(draft) === JSON.stringify(section.draft);
  const changed = [SECTIONS_QUERY_KEY, ['site', 'versions', section.section]];
  const saveDraft = useWrite({
    call: () => unwrap(api.PUT('/v1/admin/site/settings/{section}', { ...path, body: { draft } })),
    success: 'Draft saved',
    failure: 'Could not save the draft',
    invalidates: changed,
  });
  const fields = [...new Set([...Object.keys(live), ...Object.keys(draft)])];

  return (
    <section className="stack">
      <Link href="/site">← Site</Link>
      <header className="page-header">
        <h1>Settings: {section.section}</h1>
        <span className="status">
          {section.published_version === null ? 'never published' : `live v${section.published_version}`}
        </span>
      </header>
      {canWrite ? null : <p className="hint">Editing this section needs {section.write_permission}.</p>}
      <section className="stack" aria-labelledby="draft-heading">
        <h2 id="draft-heading">Draft</h2>
        <Form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            saveDraft.mutate();
          }}
        >
          <DraftFields draft={draft} known={section.known_fields} onChange={setDraft} isReadOnly={!canWrite} />
          <div className="button-row">
            <Button type="submit" className="btn btn-primary" isDisabled={!canWrite || saved || saveDraft.isPending}>
              Save draft
            </Button>
            <Button className="btn" isDisabled={saved} onPress={() => setDraft(section.draft as Draft)}>
              Undo changes
            </Button>
          </div>
        </Form>
        {/* Outside the form: a submit in the confirmation would bubble to it through React's tree. */}
        <div className="button-row">
          <Confirm
            trigger="Publish…"
            isDisabled={!canWrite || !saved || !section.has_unpublished_changes}
            disabledReason={
              !canWrite ? `Needs ${section.write_permission}` : !saved ? 'Save the draft first' : undefined
            }
            title={`Publish ${section.section}?`}
            consequence={
              <>
                <p>The saved draft becomes the live version every site and app reads within seconds:</p>
                <PublishDiff live={live} draft={section.draft as Draft} />
              </>
            }
            confirmLabel="Publish"
            reason={ruleOf('POST /v1/admin/site/settings/{section}/publish', 'note')}
            write={{
              call: (note) =>
                unwrap(
                  api.POST('/v1/admin/site/settings/{section}/publish', { ...path, body: note === '' ? {} : { note } }),
                ),
              success: (answer) => `${section.section} v${answer.version} is live`,
              failure: 'Could not publish',
              invalidates: changed,
            }}
          />
        </div>
      </section>
      <section className="stack" aria-labelledby="compare-heading">
        <h2 id="compare-heading">Draft and live compared</h2>
        <DataTable
          label="Draft and live compared"
          items={fields.map((field) => ({ id: field, live: live[field], draft: draft[field] }))}
          emptyText="Both are empty."
          columns={[
            { id: 'field', name: 'Field', isRowHeader: true, render: (row) => <code>{row.id}</code> },
            { id: 'live', name: 'Live', render: (row) => <LongText value={show(row.live)} /> },
            { id: 'draft', name: 'Draft', render: (row) => <LongText value={show(row.draft)} /> },
            {
              id: 'changed',
              name: 'Changed',
              render: (row) => (JSON.stringify(row.live) === JSON.stringify(row.draft) ? '' : 'changed'),
            },
          ]}
        />
      </section>
      <Versions section={section} canWrite={canWrite} changed={changed} />
    </section>
  );
}

/** What a publish changes, field by field: added, removed, or from the live value to the draft's. */
function PublishDiff({ live, draft }: { live: Draft; draft: Draft }) {
  const names = [...new Set([...Object.keys(live), ...Object.keys(draft)])].sort();
  const changes = names.filter((name) => JSON.stringify(live[name]) !== JSON.stringify(draft[name]));
  if (changes.length === 0) return <p>Nothing differs from the live version.</p>;
  return (
    <ul className="publish-diff" aria-label="Changes">
      {changes.map((name) => (
        <li key={name}>
          <code>{name}</code>:{' '}
          {live[name] === undefined ? (
            <>
              added <ins>{show(draft[name])}</ins>
            </>
          ) : draft[name] === undefined ? (
            <>
              removed <del>{show(live[name])}</del>
            </>
          ) : (
            <>
              <del>{show(live[name])}</del> → <ins>{show(draft[name])}</ins>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

const VERSIONS_PER_PAGE = 10;

function Versions({
  section,
  canWrite,
  changed,
}: {
  section: Section;
  canWrite: boolean;
  /** What a rollback changes, refetched after it. */
  changed: unknown[][];
}) {
  const [page, setPage] = useState(1);
  const versions = usePagedQuery(['site', 'versions', section.section, page], async () => {
    const answer = await unwrap(
      api.GET('/v1/admin/site/settings/{section}/versions', {
        params: { path: { section: section.section }, query: { page, per_page: VERSIONS_PER_PAGE } },
      }),
    );
    return { ...answer, data: answer.data.map((version) => ({ ...version, id: version.version })) };
  });
  return (
    <section className="stack" aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      <PagedTable
        label="Versions"
        list={versions}
        page={page}
        perPage={VERSIONS_PER_PAGE}
        onPage={setPage}
        emptyText="Never published."
        columns={[
          { id: 'version', name: 'Version', isRowHeader: true, render: (version) => `v${version.version}` },
          { id: 'when', name: 'Published', render: (version) => <Time value={version.published_at} /> },
          { id: 'by', name: 'By', render: (version) => version.published_by_email ?? version.published_by ?? '' },
          {
            id: 'note',
            name: 'Note',
            render: (version) =>
              `${version.note ?? ''}${version.restored_version === null ? '' : ` (restores v${version.restored_version})`}`,
          },
          {
            id: 'rollback',
            name: 'Rollback',
            render: (version) =>
              version.version === section.published_version ? (
                'live'
              ) : (
                <Confirm
                  trigger={`Roll back to v${version.version}…`}
                  triggerClassName="btn btn-quiet"
                  isDisabled={!canWrite}
                  disabledReason={canWrite ? undefined : `Needs ${section.write_permission}`}
                  title={`Roll ${section.section} back to v${version.version}?`}
                  consequence={`The live value becomes v${version.version}'s again, as a new version; the draft is kept.`}
                  confirmLabel="Roll back"
                  reason={ruleOf('POST /v1/admin/site/settings/{section}/rollback', 'note')}
                  write={{
                    call: (note) =>
                      unwrap(
                        api.POST('/v1/admin/site/settings/{section}/rollback', {
                          params: { path: { section: section.section } },
                          body: { version: version.version, ...(note === '' ? {} : { note }) },
                        }),
                      ),
                    success: (answer) => `${section.section} v${answer.version} is live (v${version.version} restored)`,
                    failure: 'Could not roll back',
                    invalidates: changed,
                  }}
                />
              ),
          },
        ]}
      />
    </section>
  );
}
