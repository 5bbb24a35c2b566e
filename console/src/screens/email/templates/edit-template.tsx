import { type components, unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { api } from '../../../api/client';
import { ruleOf } from '../../../api/field-rules';
import { ChoiceInput, TextInput } from '../../../ui/fields';
import { FormDialog } from '../../../ui/form-dialog';
import { CATEGORIES, NEEDS_WRITE } from './template-words';

type Template = components['schemas']['EmailTemplate'];
const UPDATE = 'PATCH /v1/admin/email/templates/{key}';

/** A template's name, description and category (its key never changes). */
export function EditTemplate({ template, canWrite }: { template: Template; canWrite: boolean }) {
  const [name, setName] = useState(template.name);
  const [description, setDescription] = useState(template.description ?? '');
  const [category, setCategory] = useState<string>(template.category);
  const rule = (field: string) => ruleOf(UPDATE, field);
  return (
    <FormDialog
      title={`Edit ${template.name}`}
      submitLabel="Save details"
      trigger={{
        label: 'Edit details…',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setName(template.name);
        setDescription(template.description ?? '');
        setCategory(template.category);
      }}
      write={{
        call: () =>
          unwrap(
            api.PATCH('/v1/admin/email/templates/{key}', {
              params: { path: { key: template.key } },
              body: {
                name: name.trim(),
                description: description.trim() === '' ? null : description.trim(),
                category: category as 'marketing' | 'transactional',
              },
            }),
          ),
        success: (saved) => `${saved.name} saved`,
        failure: 'Could not save the template',
        invalidates: [
          ['email', 'template', template.key],
          ['email', 'templates'],
        ],
      }}
    >
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        minLength={rule('name').minLength}
        maxLength={rule('name').maxLength}
        autoFocus
      />
      <TextInput
        label="Description (optional)"
        name="description"
        value={description}
        onChange={setDescription}
        maxLength={rule('description').maxLength}
        multiline
      />
      <ChoiceInput label="Category" value={category} choices={CATEGORIES} onChange={setCategory} />
      {category === template.category ? null : (
        <p className="hint">Mail already queued keeps the category it was queued with.</p>
      )}
    </FormDialog>
  );
}
