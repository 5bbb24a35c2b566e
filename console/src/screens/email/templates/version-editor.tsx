import { isPlatformApiError, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api } from '../../../api/client';
import { ruleOf } from '../../../api/field-rules';
import { describeProblem } from '../../../api/problems';
import { useWrite } from '../../../api/writes';
import { TextInput } from '../../../ui/fields';
import { NEEDS_WRITE, SERVICE_VARIABLES, variablesOf } from './template-words';

const NEW_VERSION = 'POST /v1/admin/email/templates/{key}/versions';

interface PlaceholderProblem {
  part: string;
  line: number;
  column: number;
  problem: string;
}

/** The service's issues by field: its schema's, and a malformed `{{` placeholder's (`details.problems`) under its part. */
function issuesOf(error: unknown): Record<string, string> {
  const fields = { ...describeProblem(error).fields };
  if (!isPlatformApiError(error)) return fields;
  const problems = (error.details as { problems?: PlaceholderProblem[] } | undefined)?.problems ?? [];
  for (const each of problems) fields[each.part] ??= `Line ${each.line}, column ${each.column}: ${each.problem}`;
  return fields;
}

interface VersionEditorProps {
  templateKey: string;
  /** The stored version the draft starts from (the newest, or one the staff member chose). */
  startFrom: number | undefined;
  /** Bumped when the staff member asks to start from `startFrom` again, over what they typed. */
  restart: number;
  canWrite: boolean;
  onSaved: (version: number) => void;
}

/**
 * A new version, written from a stored one: subject, HTML and text, the variables the draft
 * reads (as the service will list them), and a note. Saving stores it unpublished.
 */
export function VersionEditor(props: VersionEditorProps) {
  const { templateKey, startFrom } = props;
  const [subject, setSubject] = useState('');
  const [html, setHtml] = useState('');
  const [text, setText] = useState('');
  const [note, setNote] = useState('');
  const [edited, setEdited] = useState(false);
  const [filled, setFilled] = useState<{ from: number | undefined; restart: number }>({ from: undefined, restart: 0 });
  const [issues, setIssues] = useState<Record<string, string>>({});
  const base = useQuery({
    queryKey: ['email', 'template', templateKey, 'version', startFrom],
    enabled: startFrom !== undefined,
    queryFn: () =>
      unwrap(
        api.GET('/v1/admin/email/templates/{key}/versions/{version}', {
          params: { path: { key: templateKey, version: startFrom ?? 1 } },
        }),
      ),
  });
  // The draft follows the version it starts from, unless the staff member has typed since.
  const wanted = base.data?.version === startFrom ? base.data : undefined;
  if (wanted !== undefined && (filled.restart !== props.restart || (filled.from !== wanted.version && !edited))) {
    setFilled({ from: wanted.version, restart: props.restart });
    setSubject(wanted.subject);
    setHtml(wanted.html);
    setText(wanted.text);
    setNote('');
    setEdited(false);
    setIssues({});
  }
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value);
    setEdited(true);
  };
  const save = useWrite({
    call: () =>
      unwrap(
        api.POST('/v1/admin/email/templates/{key}/versions', {
          params: { path: { key: templateKey } },
          body: { subject: subject.trim(), html, text, ...(note.trim() === '' ? {} : { note: note.trim() }) },
        }),
      ),
    success: (made) => `v${made.version} saved (not sent with until published)`,
    failure: 'Could not save the version',
    invalidates: [
      ['email', 'template', templateKey],
      ['email', 'templates'],
    ],
    onDone: (made) => {
      setEdited(false);
      props.onSaved(made.version);
    },
  });
  const variables = variablesOf(subject, html, text);
  const rule = (field: string) => ruleOf(NEW_VERSION, field);

  return (
    <section className="stack" aria-labelledby="new-version">
      <h2 id="new-version">New version</h2>
      <p className="hint">
        {filled.from === undefined ? 'The first version.' : `Starts from v${filled.from}.`} Placeholders:{' '}
        <code>{'{{ name }}'}</code>, <code>{'{{ player.name }}'}</code>, <code>{'{{ name | "default" }}'}</code>; values
        are HTML-escaped in the HTML body.
      </p>
      <Form
        className="editor"
        onSubmit={(event) => {
          event.preventDefault();
          setIssues({});
          save.mutate(undefined, { onError: (error) => setIssues(issuesOf(error)) });
        }}
      >
        <TextInput
          label="Subject"
          name="subject"
          value={subject}
          onChange={edit(setSubject)}
          isRequired
          maxLength={rule('subject').maxLength}
          pattern={{ source: '[^\\r\\n]*', hint: 'One line' }}
          error={issues.subject}
        />
        <div className="editor-panes">
          <TextInput
            label="HTML body"
            name="html"
            value={html}
            onChange={edit(setHtml)}
            isRequired
            maxLength={rule('html').maxLength}
            multiline
            error={issues.html}
          />
          <TextInput
            label="Text body"
            name="text"
            value={text}
            onChange={edit(setText)}
            isRequired
            maxLength={rule('text').maxLength}
            multiline
            error={issues.text}
            description="For mail readers that show no HTML."
          />
        </div>
        <div className="stack-tight">
          <span className="field-label" id="draft-variables">
            Variables this draft reads
          </span>
          {variables.length === 0 ? (
            <span className="muted">None yet.</span>
          ) : (
            <ul className="email-variables" aria-labelledby="draft-variables">
              {variables.map((name) => (
                <li key={name}>
                  <code>{name}</code>
                  {SERVICE_VARIABLES.includes(name) ? <span className="muted"> (filled in by the service)</span> : null}
                </li>
              ))}
            </ul>
          )}
        </div>
        <TextInput
          label="Note (optional)"
          name="note"
          value={note}
          onChange={setNote}
          maxLength={rule('note').maxLength}
          description="Why this version was written: shown in the version list."
          error={issues.note}
        />
        {issues[''] === undefined ? null : (
          <p className="error" role="alert">
            {issues['']}
          </p>
        )}
        <span className="button-row">
          <Button
            type="submit"
            className="btn btn-primary"
            isDisabled={!props.canWrite || save.isPending}
            aria-description={props.canWrite ? undefined : NEEDS_WRITE}
          >
            {save.isPending ? 'Saving…' : 'Save version'}
          </Button>
          {props.canWrite ? null : <span className="hint">{NEEDS_WRITE}</span>}
        </span>
      </Form>
    </section>
  );
}
