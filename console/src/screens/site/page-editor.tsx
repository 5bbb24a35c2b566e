import { unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { describeProblem } from '../../api/problems';
import { useWrite } from '../../api/writes';
import { TextInput } from '../../ui/fields';
import { MarkdownPreview } from './markdown-preview';

const NEW_VERSION = 'POST /v1/admin/site/pages/{id}/versions';

/** The version an edit starts from: its number and source (none before the first save). */
export interface StartingPoint {
  version: number | null;
  markdown: string;
  isLive: boolean;
}

/**
 * A new version of a page, written beside its preview. It starts from a stored version's source
 * (the newest, or one staff chose), so an edit changes what is there instead of retyping it; the
 * caller remounts it (a new `key`) when the starting point changes.
 */
export function PageEditor({
  pageId,
  start,
  canWrite,
  invalidates,
}: {
  pageId: string;
  start: StartingPoint;
  canWrite: boolean;
  invalidates: string[][];
}) {
  const [markdown, setMarkdown] = useState(start.markdown);
  const [note, setNote] = useState('');
  const [fields, setFields] = useState<Record<string, string>>({});
  const unchanged = markdown === start.markdown;
  const saveVersion = useWrite({
    call: () =>
      unwrap(
        api.POST('/v1/admin/site/pages/{id}/versions', {
          params: { path: { id: pageId } },
          body: { markdown, ...(note.trim() === '' ? {} : { note: note.trim() }) },
        }),
      ),
    success: (made) => `v${made.version} saved (not live until published)`,
    failure: 'Could not save the version',
    invalidates,
  });

  return (
    <Form
      className="editor"
      validationErrors={fields}
      onSubmit={(event) => {
        event.preventDefault();
        setFields({});
        saveVersion.mutate(undefined, { onError: (error) => setFields(describeProblem(error).fields) });
      }}
    >
      <div className="button-row">
        <p className="hint" role="status">
          {start.version === null
            ? 'The first version of this page.'
            : `Starting from v${start.version}${start.isLive ? ' (live)' : ''}${unchanged ? '' : ', edited'}.`}
        </p>
        {unchanged ? null : (
          <Button className="btn btn-quiet" onPress={() => setMarkdown(start.markdown)}>
            Undo my edits
          </Button>
        )}
      </div>
      <div className="editor-panes">
        <TextInput
          label="Markdown"
          name="markdown"
          value={markdown}
          onChange={setMarkdown}
          isRequired
          maxLength={ruleOf(NEW_VERSION, 'markdown').maxLength}
          multiline
          error={fields.markdown}
        />
        <div className="stack-tight">
          <span className="field-label">Preview</span>
          <MarkdownPreview markdown={markdown} label="Preview of the new version" />
        </div>
      </div>
      <TextInput
        label="Note (optional)"
        name="note"
        value={note}
        onChange={setNote}
        maxLength={ruleOf(NEW_VERSION, 'note').maxLength}
      />
      <Button
        type="submit"
        className="btn btn-primary"
        isDisabled={!canWrite || markdown.trim() === '' || unchanged || saveVersion.isPending}
      >
        Save version
      </Button>
      {unchanged && start.version !== null ? (
        <span className="hint">Change the markdown to save a new version.</span>
      ) : null}
    </Form>
  );
}
