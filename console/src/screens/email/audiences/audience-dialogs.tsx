import { type ListBody, type ListItem, unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { api } from '../../../api/client';
import { ruleOf } from '../../../api/field-rules';
import { useWrite } from '../../../api/writes';
import { Confirm } from '../../../ui/confirm';
import { TextInput } from '../../../ui/fields';
import { FormDialog } from '../../../ui/form-dialog';

export type Audience = ListItem<ListBody<'/v1/admin/email/audiences'>>;
export const NEEDS_WRITE = 'Needs email.write';
const CREATE = 'POST /v1/admin/email/audiences';

function NameAndDescription(props: {
  name: string;
  setName: (value: string) => void;
  description: string;
  setDescription: (value: string) => void;
}) {
  return (
    <>
      <TextInput
        label="Name"
        name="name"
        value={props.name}
        onChange={props.setName}
        isRequired
        minLength={ruleOf(CREATE, 'name').minLength}
        maxLength={ruleOf(CREATE, 'name').maxLength}
        description="Campaigns pick the audience by this name."
        autoFocus
      />
      <TextInput
        label="Description (optional)"
        name="description"
        value={props.description}
        onChange={props.setDescription}
        maxLength={ruleOf(CREATE, 'description').maxLength}
        multiline
      />
    </>
  );
}

/** A new, empty audience; its members come from a CSV upload on its page. */
export function CreateAudience({
  canWrite,
  onCreated,
}: {
  canWrite: boolean;
  onCreated: (audience: Audience) => void;
}) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  return (
    <FormDialog<Audience>
      title="New audience"
      submitLabel="Create audience"
      trigger={{
        label: 'New audience…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setName('');
        setDescription('');
      }}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/email/audiences', {
              body: { name: name.trim(), description: description.trim() === '' ? null : description.trim() },
            }),
          ),
        success: (audience) => `Audience ${audience.name} created`,
        failure: 'Could not create the audience',
        invalidates: [['email', 'audiences']],
        onDone: onCreated,
      }}
    >
      <NameAndDescription name={name} setName={setName} description={description} setDescription={setDescription} />
    </FormDialog>
  );
}

export function EditAudience({ audience, canWrite }: { audience: Audience; canWrite: boolean }) {
  const [name, setName] = useState(audience.name);
  const [description, setDescription] = useState(audience.description ?? '');
  return (
    <FormDialog<Audience>
      title={`Edit ${audience.name}`}
      submitLabel="Save"
      trigger={{
        label: 'Edit…',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setName(audience.name);
        setDescription(audience.description ?? '');
      }}
      write={{
        call: () =>
          unwrap(
            api.PUT('/v1/admin/email/audiences/{id}', {
              params: { path: { id: audience.id } },
              body: { name: name.trim(), description: description.trim() === '' ? null : description.trim() },
            }),
          ),
        success: (saved) => `Audience ${saved.name} saved`,
        failure: 'Could not save the audience',
        invalidates: [
          ['email', 'audiences'],
          ['email', 'audience', audience.id],
          ['email', 'campaigns'],
        ],
      }}
    >
      <NameAndDescription name={name} setName={setName} description={description} setDescription={setDescription} />
    </FormDialog>
  );
}

export function DeleteAudience({
  audience,
  canWrite,
  onDeleted,
}: {
  audience: Audience;
  canWrite: boolean;
  onDeleted?: () => void;
}) {
  const remove = useWrite({
    call: () => unwrap(api.DELETE('/v1/admin/email/audiences/{id}', { params: { path: { id: audience.id } } })),
    success: `Audience ${audience.name} deleted`,
    failure: 'Could not delete the audience',
    invalidates: [
      ['email', 'audiences'],
      ['email', 'campaigns'],
    ],
    onDone: () => onDeleted?.(),
  });
  const members = audience.member_count.toLocaleString('en-GB');
  return (
    <Confirm
      trigger="Delete…"
      destructive
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      title={`Delete the audience ${audience.name}?`}
      consequence={
        `Its list of ${members} member${audience.member_count === 1 ? '' : 's'} is removed with it, and draft or ` +
        `scheduled campaigns that send to it lose their audience (they cannot launch until given another). ` +
        `Mail already sent stays in the outbox. This cannot be undone.`
      }
      confirmLabel="Delete audience"
      onConfirm={() => remove.mutateAsync()}
    />
  );
}
