import { unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';

const RENAME = 'PATCH /v1/admin/site/pages/{id}';
const RULES = { slug: ruleOf(RENAME, 'slug'), title: ruleOf(RENAME, 'title') };

/** A page's title and address; a live page shows the change at once, which the dialog says. */
export function RenamePage({
  page,
  canWrite,
}: {
  page: { id: string; slug: string; title: string; published_version: number | null };
  canWrite: boolean;
}) {
  const [title, setTitle] = useState(page.title);
  const [slug, setSlug] = useState(page.slug);
  const body = {
    ...(title.trim() === page.title ? {} : { title: title.trim() }),
    ...(slug.trim() === page.slug ? {} : { slug: slug.trim() }),
  };
  return (
    <FormDialog
      title={`Rename /${page.slug}`}
      submitLabel="Save title and address"
      trigger={{ label: 'Rename…', isDisabled: !canWrite, disabledReason: 'Needs site.write' }}
      onOpen={() => {
        setTitle(page.title);
        setSlug(page.slug);
      }}
      canSubmit={Object.keys(body).length > 0}
      write={{
        call: () => unwrap(api.PATCH('/v1/admin/site/pages/{id}', { params: { path: { id: page.id } }, body })),
        success: `Saved as /${slug.trim()}`,
        failure: 'Could not rename the page',
        invalidates: [
          ['site', 'page'],
          ['site', 'pages'],
        ],
      }}
    >
      <TextInput
        label="Title"
        name="title"
        value={title}
        onChange={setTitle}
        isRequired
        minLength={RULES.title.minLength}
        maxLength={RULES.title.maxLength}
        autoFocus
      />
      <TextInput
        label="Address"
        name="slug"
        value={slug}
        onChange={setSlug}
        isRequired
        pattern={
          RULES.slug.pattern === undefined
            ? undefined
            : { source: RULES.slug.pattern, hint: 'Lower-case letters, digits and -, starting with a letter or digit.' }
        }
        description={
          page.published_version === null
            ? 'The page is not live yet.'
            : 'The page is live: the old address stops working as soon as this is saved.'
        }
      />
    </FormDialog>
  );
}
