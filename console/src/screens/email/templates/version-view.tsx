import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api } from '../../../api/client';
import { useWrite } from '../../../api/writes';
import { TextInput } from '../../../ui/fields';
import { ProblemNote } from '../../../ui/problem-note';
import { Time } from '../../../ui/time';
import { redactSecrets } from '../delivery/redact';
import { EmailHtml, EmailText } from '../email-html';
import { sampleVars, SERVICE_VARIABLES } from './template-words';

/**
 * One stored version: its subject and bodies as written, the variables it reads, and a preview
 * rendered by the service with sample values for them (as a recipient would get it). Keyed by
 * its version where used, so another version starts with its own sample values.
 */
export function VersionView(props: { templateKey: string; version: number; onStartFrom: () => void }) {
  const { templateKey, version } = props;
  const stored = useQuery({
    queryKey: ['email', 'template', templateKey, 'version', version],
    queryFn: () =>
      unwrap(
        api.GET('/v1/admin/email/templates/{key}/versions/{version}', {
          params: { path: { key: templateKey, version } },
        }),
      ),
  });
  const [samples, setSamples] = useState<Record<string, string>>({});
  const preview = useWrite({
    call: () =>
      unwrap(
        api.POST('/v1/admin/email/templates/{key}/preview', {
          params: { path: { key: templateKey } },
          body: { version, vars: sampleVars(samples) },
        }),
      ),
    failure: 'Could not render the preview',
  });

  if (stored.error !== null) return <ProblemNote error={stored.error} />;
  if (stored.data === undefined) return <p className="loading">Loading v{version}…</p>;
  const current = stored.data;
  const own = current.variables.filter((name) => !SERVICE_VARIABLES.includes(name));
  const rendered = preview.data;

  return (
    <section className="stack" aria-labelledby="opened-version">
      <header className="page-header">
        <h2 id="opened-version">
          Version {current.version}
          {current.is_published ? ' (live)' : ''}
        </h2>
        <span className="muted">
          saved <Time value={current.created_at} />
        </span>
        <Button className="btn" onPress={props.onStartFrom}>
          Start a new version from v{current.version}
        </Button>
      </header>
      <div className="email-columns">
        <section className="email-panel" aria-labelledby="version-variables">
          <h3 id="version-variables">Variables it reads</h3>
          {current.variables.length === 0 ? (
            <p className="muted">None: every recipient gets the same text.</p>
          ) : (
            <ul className="email-variables" aria-label="Variables">
              {current.variables.map((name) => (
                <li key={name}>
                  <code>{name}</code>
                  {SERVICE_VARIABLES.includes(name) ? <span className="muted"> (filled in by the service)</span> : null}
                </li>
              ))}
            </ul>
          )}
          <Form
            className="stack"
            aria-label="Sample values"
            onSubmit={(event) => {
              event.preventDefault();
              preview.mutate();
            }}
          >
            {own.map((name) => (
              <TextInput
                key={name}
                label={`Sample ${name}`}
                value={samples[name] ?? ''}
                onChange={(value) => setSamples((all) => ({ ...all, [name]: value }))}
                description={name.includes('.') ? 'Text, or JSON for a list or object.' : undefined}
              />
            ))}
            <p className="hint">
              {own.length === 0 ? '' : 'Empty values show the placeholder’s default, if it has one. '}
              The recipient’s address and unsubscribe link get sample values.
            </p>
            <Button type="submit" className="btn btn-primary" isDisabled={preview.isPending}>
              {preview.isPending ? 'Rendering…' : `Preview v${current.version}`}
            </Button>
          </Form>
        </section>
        <section className="email-panel" aria-labelledby="version-preview">
          <h3 id="version-preview">{rendered === undefined ? 'As written' : 'Preview with the sample values'}</h3>
          {rendered === undefined ? (
            <>
              <p className="email-subject">Subject: {current.subject}</p>
              <span className="field-label">HTML source</span>
              <EmailText text={current.html} />
              <span className="field-label">Text</span>
              <EmailText text={current.text} />
            </>
          ) : (
            <>
              <p className="email-subject">Subject: {rendered.subject}</p>
              <p className="hint">The sample unsubscribe link’s token shows as [hidden].</p>
              <span className="field-label">HTML (without its own styles)</span>
              <EmailHtml html={redactSecrets(rendered.html)} label={`HTML preview of v${rendered.version}`} />
              <span className="field-label">Text</span>
              <EmailText text={redactSecrets(rendered.text)} />
              <Button className="btn btn-quiet" onPress={() => preview.reset()}>
                Show as written
              </Button>
            </>
          )}
          {current.note === null ? null : <p className="muted">Note: {current.note}</p>}
        </section>
      </div>
    </section>
  );
}
