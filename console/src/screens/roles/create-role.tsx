import { unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { PermissionPicker } from './permission-picker';

const CREATE = 'POST /v1/admin/roles';
const RULES = { key: ruleOf(CREATE, 'key'), name: ruleOf(CREATE, 'name'), description: ruleOf(CREATE, 'description') };

/** A new role: key, name, description and its permissions, in a dialog. */
export function CreateRole({
  canWrite,
  holds,
  onCreated,
}: {
  canWrite: boolean;
  holds: (key: string) => boolean;
  onCreated: (id: string) => void;
}) {
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [keys, setKeys] = useState<string[]>([]);

  return (
    <FormDialog
      title="New role"
      submitLabel="Create role"
      wide
      trigger={{
        label: 'New role…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: 'Needs roles.write',
      }}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/roles', {
              body: {
                key: key.trim(),
                name: name.trim(),
                ...(description.trim() === '' ? {} : { description: description.trim() }),
                permissions: keys,
              },
            }),
          ),
        success: `Role ${key.trim()} created`,
        failure: 'Could not create the role',
        invalidates: [['roles']],
        onDone: (made) => onCreated(made.id),
      }}
    >
      <TextInput
        label="Key"
        name="key"
        value={key}
        onChange={setKey}
        isRequired={RULES.key.required}
        pattern={
          RULES.key.pattern === undefined
            ? undefined
            : { source: RULES.key.pattern, hint: 'Lower-case letters, digits, _ . - ; starting with a letter.' }
        }
        description="Stays as it is: what grants and filters name."
        autoFocus
      />
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired={RULES.name.required}
        minLength={RULES.name.minLength}
        maxLength={RULES.name.maxLength}
      />
      <TextInput
        label="Description"
        name="description"
        value={description}
        onChange={setDescription}
        maxLength={RULES.description.maxLength}
        multiline
      />
      <PermissionPicker value={keys} onChange={setKeys} holds={holds} />
    </FormDialog>
  );
}
