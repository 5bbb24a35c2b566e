import { unwrap } from '@platform-api/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { describeProblem } from '../../api/problems';
import { TextInput } from '../../ui/fields';
import { notify } from '../../ui/toasts';
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
  const queryClient = useQueryClient();
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [keys, setKeys] = useState<string[]>([]);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  return (
    <DialogTrigger>
      <Button className="btn btn-primary" isDisabled={!canWrite}>
        New role…
      </Button>
      {canWrite ? null : <span className="hint">Needs roles.write</span>}
      <ModalOverlay className="overlay" isDismissable={!busy}>
        <Modal className="modal modal-wide">
          <Dialog className="dialog">
            {({ close }) => (
              <Form
                validationErrors={fields}
                onSubmit={async (event) => {
                  event.preventDefault();
                  setBusy(true);
                  setFields({});
                  try {
                    const made = await unwrap(
                      api.POST('/v1/admin/roles', {
                        body: {
                          key: key.trim(),
                          name: name.trim(),
                          ...(description.trim() === '' ? {} : { description: description.trim() }),
                          permissions: keys,
                        },
                      }),
                    );
                    notify.success(`Role ${key.trim()} created`);
                    await queryClient.invalidateQueries({ queryKey: ['roles'] });
                    close();
                    onCreated(made.id);
                  } catch (error) {
                    setFields(describeProblem(error).fields);
                    notify.failure('Could not create the role', error);
                  } finally {
                    setBusy(false);
                  }
                }}
              >
                <Heading slot="title">New role</Heading>
                <TextInput
                  label="Key"
                  name="key"
                  value={key}
                  onChange={setKey}
                  isRequired={RULES.key.required}
                  pattern={
                    RULES.key.pattern === undefined
                      ? undefined
                      : {
                          source: RULES.key.pattern,
                          hint: 'Lower-case letters, digits, _ . - ; starting with a letter.',
                        }
                  }
                  description="Stays as it is: what grants and filters name."
                  error={fields.key}
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
                  error={fields.name}
                />
                <TextInput
                  label="Description"
                  name="description"
                  value={description}
                  onChange={setDescription}
                  maxLength={RULES.description.maxLength}
                  multiline
                  error={fields.description}
                />
                <PermissionPicker value={keys} onChange={setKeys} holds={holds} />
                <div className="dialog-actions">
                  <Button className="btn" onPress={close} isDisabled={busy}>
                    Cancel
                  </Button>
                  <Button type="submit" className="btn btn-primary" isDisabled={busy}>
                    Create role
                  </Button>
                </div>
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
