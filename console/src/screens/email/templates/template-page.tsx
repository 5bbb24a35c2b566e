import { type components, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { Link, useLocation } from 'wouter';
import { api } from '../../../api/client';
import { usePermissions } from '../../../api/permissions';
import { Confirm } from '../../../ui/confirm';
import { DataTable } from '../../../ui/data-table';
import { LongText } from '../../../ui/long-text';
import { ActorLink } from '../../../ui/names';
import { ProblemNote } from '../../../ui/problem-note';
import { Time } from '../../../ui/time';
import { EmailNav } from '../email-nav';
import { EditTemplate } from './edit-template';
import { NEEDS_WRITE, publishedLabel } from './template-words';
import { VersionEditor } from './version-editor';
import { VersionView } from './version-view';

type Template = components['schemas']['EmailTemplate'];
type VersionRow = Template['versions'][number] & { id: number };

/**
 * One template: its details, its versions (open one, publish it or roll back to it), the opened
 * version's variables and a preview with sample values, a new version written from the newest,
 * unpublishing and deleting.
 */
export default function TemplatePage({ templateKey }: { templateKey: string }) {
  const canWrite = usePermissions().can('email.write');
  const path = { params: { path: { key: templateKey } } };
  const template = useQuery({
    queryKey: ['email', 'template', templateKey],
    queryFn: () => unwrap(api.GET('/v1/admin/email/templates/{key}', path)),
  });
  const [opened, setOpened] = useState<number | undefined>();
  const [draftFrom, setDraftFrom] = useState<number | undefined>();
  const [restart, setRestart] = useState(0);

  if (template.error !== null)
    return (
      <section className="stack">
        <h1>Email</h1>
        <EmailNav />
        <Link href="/email/templates">← Templates</Link>
        <ProblemNote error={template.error} />
      </section>
    );
  if (template.data === undefined) return <p className="loading">Loading…</p>;
  const current = template.data;
  const shown = opened ?? current.published_version ?? current.latest_version ?? undefined;
  const CHANGED = [
    ['email', 'template', templateKey],
    ['email', 'templates'],
  ];
  const versions: VersionRow[] = current.versions.map((version) => ({ ...version, id: version.version }));

  return (
    <section className="stack">
      <h1>Email</h1>
      <EmailNav />
      <Link href="/email/templates">← Templates</Link>
      <header className="page-header">
        <h2>{current.name}</h2>
        <code>{current.key}</code>
        <span className={current.published_version === null ? 'status' : 'status status-active'}>
          {publishedLabel(current.published_version)}
        </span>
        <span className="button-row">
          <EditTemplate template={current} canWrite={canWrite} />
          {current.published_version === null ? null : (
            <Confirm
              trigger="Unpublish…"
              destructive
              isDisabled={!canWrite}
              disabledReason={canWrite ? undefined : NEEDS_WRITE}
              title={`Unpublish ${current.name}?`}
              consequence={
                `Campaigns and broadcasts can no longer use ${current.key} (they are refused) until a version is ` +
                `published again. Mail already queued keeps its version; every version is kept.`
              }
              confirmLabel="Unpublish"
              write={{
                call: () => unwrap(api.POST('/v1/admin/email/templates/{key}/unpublish', { ...path, body: {} })),
                success: `${current.name} is unpublished`,
                failure: 'Could not unpublish the template',
                invalidates: CHANGED,
              }}
            />
          )}
          <DeleteTemplate template={current} canWrite={canWrite} />
        </span>
      </header>
      {canWrite ? null : <p className="hint">Writing templates needs email.write.</p>}
      <dl className="facts">
        <dt>Category</dt>
        <dd>{current.category}</dd>
        <dt>Description</dt>
        <dd>{current.description ?? <span className="muted">none</span>}</dd>
        <dt>Published</dt>
        <dd>
          {current.published_version === null ? (
            'not published: campaigns and broadcasts cannot use it'
          ) : (
            <>
              v{current.published_version} since <Time value={current.published_at} />
            </>
          )}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time value={current.created_at} /> by <ActorLink id={current.created_by} />
        </dd>
        <dt>Changed</dt>
        <dd>
          <Time value={current.updated_at} /> by <ActorLink id={current.updated_by} />
        </dd>
      </dl>

      <section className="stack" aria-labelledby="template-versions">
        <h2 id="template-versions">Versions</h2>
        <DataTable<VersionRow>
          label="Versions"
          items={versions}
          emptyText="No versions yet: write the first one below."
          columns={[
            { id: 'version', name: 'Version', isRowHeader: true, render: (version) => `v${version.version}` },
            { id: 'subject', name: 'Subject', long: true, render: (version) => version.subject },
            { id: 'note', name: 'Note', render: (version) => <LongText value={version.note} /> },
            { id: 'by', name: 'By', render: (version) => <ActorLink id={version.created_by} /> },
            { id: 'when', name: 'Saved', render: (version) => <Time value={version.created_at} /> },
            {
              id: 'actions',
              name: 'Actions',
              render: (version) => (
                <span className="button-row">
                  <Button
                    className="btn btn-quiet"
                    isDisabled={shown === version.version}
                    onPress={() => setOpened(version.version)}
                  >
                    {shown === version.version ? `v${version.version} is open` : `Open v${version.version}`}
                  </Button>
                  {version.is_published ? (
                    <span className="status status-active">live</span>
                  ) : (
                    <Confirm
                      trigger={
                        current.published_version !== null && version.version < current.published_version
                          ? 'Roll back to this…'
                          : 'Publish…'
                      }
                      triggerClassName="btn btn-quiet"
                      isDisabled={!canWrite}
                      disabledReason={canWrite ? undefined : NEEDS_WRITE}
                      title={`Publish v${version.version} of ${current.name}?`}
                      consequence={
                        `Mail is made from v${version.version} from now on, by every campaign and broadcast that ` +
                        `names ${current.key}. Mail already queued keeps the version it was queued with.`
                      }
                      confirmLabel={`Publish v${version.version}`}
                      write={{
                        call: () =>
                          unwrap(
                            api.POST('/v1/admin/email/templates/{key}/publish', {
                              ...path,
                              body: { version: version.version },
                            }),
                          ),
                        success: `${current.name} v${version.version} is live`,
                        failure: 'Could not publish the version',
                        invalidates: CHANGED,
                      }}
                    />
                  )}
                </span>
              ),
            },
          ]}
        />
      </section>

      {shown === undefined ? null : (
        <VersionView
          key={shown}
          templateKey={templateKey}
          version={shown}
          onStartFrom={() => {
            setDraftFrom(shown);
            setRestart((count) => count + 1);
            document.getElementById('new-version')?.scrollIntoView();
          }}
        />
      )}
      <VersionEditor
        templateKey={templateKey}
        startFrom={draftFrom ?? current.latest_version ?? undefined}
        restart={restart}
        canWrite={canWrite}
        onSaved={(version) => {
          setOpened(version);
          setDraftFrom(undefined);
        }}
      />
    </section>
  );
}

function DeleteTemplate({ template, canWrite }: { template: Template; canWrite: boolean }) {
  const [, navigate] = useLocation();
  const count = template.versions.length;
  return (
    <Confirm
      trigger="Delete…"
      destructive
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      title={`Delete ${template.name}?`}
      consequence={
        <>
          <p>
            The template <code>{template.key}</code> and its {count === 1 ? 'one version' : `${count} versions`} are
            deleted for good; campaigns and broadcasts naming it can no longer send it.
          </p>
          <p>
            If mail was already made from it, the service refuses (that mail must stay readable): unpublish it instead.
          </p>
        </>
      }
      confirmLabel="Delete template"
      typeToConfirm={template.key}
      write={{
        call: () => unwrap(api.DELETE('/v1/admin/email/templates/{key}', { params: { path: { key: template.key } } })),
        success: `Template ${template.name} deleted`,
        failure: 'Could not delete the template',
        invalidates: [['email', 'templates']],
        onDone: () => navigate('/email/templates'),
      }}
    />
  );
}
