import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { Confirm } from '../../ui/confirm';
import { LongText } from '../../ui/long-text';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { MarkdownPreview } from './markdown-preview';
import { PageEditor } from './page-editor';
import { RenamePage } from './rename-page';

const VERSIONS_PER_PAGE = 10;

/** One page: a new version written from a stored one beside its preview, its versions, publishing one (or an older one back), unpublishing. */
export default function PageDetail({ id }: { id: string }) {
  const permissions = usePermissions();
  const canWrite = permissions.can('site.write');
  const path = { params: { path: { id } } };
  const page = useQuery({
    queryKey: ['site', 'page', id],
    queryFn: () => unwrap(api.GET('/v1/admin/site/pages/{id}', path)),
  });
  const [versionsPage, setVersionsPage] = useState(1);
  const versions = usePagedQuery(['site', 'page', id, 'versions', versionsPage], async () => {
    const answer = await unwrap(
      api.GET('/v1/admin/site/pages/{id}/versions', {
        params: { path: { id }, query: { page: versionsPage, per_page: VERSIONS_PER_PAGE } },
      }),
    );
    return { ...answer, data: answer.data.map((version) => ({ ...version, id: version.version })) };
  });
  const [previewed, setPreviewed] = useState<number | undefined>();
  const preview = useQuery({
    queryKey: ['site', 'page', id, 'version', previewed],
    enabled: previewed !== undefined,
    queryFn: () =>
      unwrap(
        api.GET('/v1/admin/site/pages/{id}/versions/{version}', { params: { path: { id, version: previewed ?? 0 } } }),
      ),
  });
  const [chosenStart, setChosenStart] = useState<number | undefined>();
  const startVersion = chosenStart ?? page.data?.latest_version ?? undefined;
  const start = useQuery({
    queryKey: ['site', 'page', id, 'version', startVersion],
    enabled: startVersion !== undefined,
    queryFn: () =>
      unwrap(
        api.GET('/v1/admin/site/pages/{id}/versions/{version}', {
          params: { path: { id, version: startVersion ?? 0 } },
        }),
      ),
  });
  const CHANGED = [
    ['site', 'page'],
    ['site', 'pages'],
  ];

  if (page.error !== null)
    return (
      <section className="stack">
        <Link href="/site/pages">← Pages</Link>
        <ProblemNote error={page.error} />
      </section>
    );
  if (page.data === undefined) return <p className="loading">Loading…</p>;
  const current = page.data;
  const publish = (version: number) => ({
    call: () => unwrap(api.POST('/v1/admin/site/pages/{id}/publish', { ...path, body: { version } })),
    success: `/${current.slug} v${version} is live`,
    failure: 'Could not publish',
    invalidates: CHANGED,
  });

  return (
    <section className="stack">
      <Link href="/site/pages">← Pages</Link>
      <header className="page-header">
        <h1>{current.title}</h1>
        <code>/{current.slug}</code>
        <span className="status">
          {current.published_version === null ? 'unpublished' : `live v${current.published_version}`}
        </span>
        <RenamePage page={current} canWrite={canWrite} />
      </header>
      {canWrite ? null : <p className="hint">Editing pages needs site.write.</p>}
      <section className="stack" aria-labelledby="new-version">
        <h2 id="new-version">New version</h2>
        {startVersion === undefined ? (
          <PageEditor
            key="first"
            pageId={id}
            start={{ version: null, markdown: '', isLive: false }}
            canWrite={canWrite}
            invalidates={CHANGED}
          />
        ) : start.error !== null ? (
          <ProblemNote error={start.error} />
        ) : start.data === undefined ? (
          <p className="loading">Loading v{startVersion}…</p>
        ) : (
          <PageEditor
            key={`${start.data.version}`}
            pageId={id}
            start={{
              version: start.data.version,
              markdown: start.data.markdown,
              isLive: start.data.version === current.published_version,
            }}
            canWrite={canWrite}
            invalidates={CHANGED}
          />
        )}
      </section>
      <section className="stack" aria-labelledby="page-versions">
        <h2 id="page-versions">Versions</h2>
        <PagedTable
          label="Versions"
          list={versions}
          page={versionsPage}
          perPage={VERSIONS_PER_PAGE}
          onPage={setVersionsPage}
          emptyText="No versions yet."
          columns={[
            { id: 'version', name: 'Version', isRowHeader: true, render: (version) => `v${version.version}` },
            { id: 'note', name: 'Note', render: (version) => <LongText value={version.note} /> },
            { id: 'by', name: 'By', render: (version) => version.created_by_email ?? '' },
            { id: 'when', name: 'Saved', render: (version) => <Time value={version.created_at} /> },
            {
              id: 'actions',
              name: 'Actions',
              render: (version) => (
                <span className="button-row">
                  <Button className="btn btn-quiet" onPress={() => setPreviewed(version.version)}>
                    View
                  </Button>
                  <Button
                    className="btn btn-quiet"
                    isDisabled={!canWrite || version.version === startVersion}
                    onPress={() => setChosenStart(version.version)}
                  >
                    Edit from this
                  </Button>
                  {version.is_published ? (
                    <span>live</span>
                  ) : (
                    <Confirm
                      trigger={
                        current.published_version !== null && version.version < current.published_version
                          ? 'Roll back to this…'
                          : 'Publish…'
                      }
                      triggerClassName="btn btn-quiet"
                      isDisabled={!canWrite}
                      disabledReason={canWrite ? undefined : 'Needs site.write'}
                      title={`Publish v${version.version} of /${current.slug}?`}
                      consequence="This version becomes the page every site shows, at once."
                      confirmLabel="Publish"
                      write={publish(version.version)}
                    />
                  )}
                </span>
              ),
            },
          ]}
        />
        {preview.data === undefined || previewed === undefined ? null : (
          <section className="stack" aria-labelledby="version-preview">
            <h3 id="version-preview">v{preview.data.version}: source and preview</h3>
            <div className="editor-panes">
              <figure className="markdown-source" aria-label={`Source of v${preview.data.version}`}>
                <pre>{preview.data.markdown}</pre>
              </figure>
              <MarkdownPreview markdown={preview.data.markdown} label={`Preview of v${preview.data.version}`} />
            </div>
          </section>
        )}
      </section>
      {current.published_version === null ? null : (
        <Confirm
          trigger="Unpublish…"
          destructive
          isDisabled={!canWrite}
          disabledReason={canWrite ? undefined : 'Needs site.write'}
          title={`Unpublish /${current.slug}?`}
          consequence="The page disappears from every site (its address answers not found); its versions stay."
          confirmLabel="Unpublish"
          write={{
            call: () => unwrap(api.POST('/v1/admin/site/pages/{id}/unpublish', { ...path, body: {} })),
            success: `/${current.slug} is unpublished`,
            failure: 'Could not unpublish',
            invalidates: CHANGED,
          }}
        />
      )}
    </section>
  );
}
