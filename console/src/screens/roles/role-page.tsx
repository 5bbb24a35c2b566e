import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { Link, useLocation } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { describeProblem } from '../../api/problems';
import { useWrite } from '../../api/writes';
import { Confirm } from '../../ui/confirm';
import { TextInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { PermissionPicker } from './permission-picker';
import { RoleAlerts } from './role-alerts';
import type { RoleDetail } from './types';

const UPDATE = 'PATCH /v1/admin/roles/{id}';

/** One role: its name and description, its permissions, its members, and deleting it. */
export default function RolePage({ id }: { id: string }) {
  const role = useQuery({
    queryKey: ['role', id],
    queryFn: () => unwrap(api.GET('/v1/admin/roles/{id}', { params: { path: { id } } })),
  });
  if (role.error !== null)
    return (
      <section className="stack">
        <Link href="/roles">← Roles</Link>
        <ProblemNote error={role.error} />
      </section>
    );
  if (role.data === undefined) return <p className="loading">Loading…</p>;
  // Keyed by the stored row: the forms start again from what the service now holds.
  return <RoleEditor key={role.data.updated_at} role={role.data} />;
}

function RoleEditor({ role }: { role: RoleDetail }) {
  const permissions = usePermissions();
  const [, navigate] = useLocation();
  const canWrite = permissions.can('roles.write') && !role.protected;
  const [name, setName] = useState(role.name);
  const [description, setDescription] = useState(role.description ?? '');
  const [keys, setKeys] = useState(role.permissions);
  const [fields, setFields] = useState<Record<string, string>>({});
  const path = { params: { path: { id: role.id } } };
  const changed = [['role', role.id], ['roles'], ['me', 'permissions']];
  const saveDetails = useWrite({
    call: () =>
      unwrap(
        api.PATCH('/v1/admin/roles/{id}', {
          ...path,
          body: { name: name.trim(), description: description.trim() === '' ? null : description.trim() },
        }),
      ),
    success: 'Role saved',
    failure: 'Could not save the role',
    invalidates: changed,
  });
  const savePermissions = useWrite({
    call: () => unwrap(api.PUT('/v1/admin/roles/{id}/permissions', { ...path, body: { keys } })),
    success: 'Permissions saved: members get them on their next token',
    failure: 'Could not save the permissions',
    invalidates: changed,
  });
  const keysChanged = [...keys].sort().join(' ') !== [...role.permissions].sort().join(' ');
  const detailsChanged = name !== role.name || description !== (role.description ?? '');

  return (
    <section className="stack">
      <Link href="/roles">← Roles</Link>
      <header className="page-header">
        <h1>{role.name}</h1>
        <code>{role.key}</code>
        {role.protected ? <span className="status">built in</span> : null}
      </header>
      {role.protected ? (
        <p className="hint">A built-in role: its permissions and name cannot change, and it cannot be deleted.</p>
      ) : null}
      {permissions.can('roles.write') ? null : <p className="hint">Changing roles needs roles.write.</p>}
      <p>
        <Link href={`/users?role=${encodeURIComponent(role.key)}`}>
          {role.member_count} {role.member_count === 1 ? 'member' : 'members'}
        </Link>
      </p>
      <Form
        className="stack"
        aria-label="Name and description"
        validationErrors={fields}
        onSubmit={(event) => {
          event.preventDefault();
          setFields({});
          saveDetails.mutate(undefined, { onError: (error) => setFields(describeProblem(error).fields) });
        }}
      >
        <TextInput
          label="Name"
          name="name"
          value={name}
          onChange={setName}
          isRequired
          minLength={ruleOf(UPDATE, 'name').minLength}
          maxLength={ruleOf(UPDATE, 'name').maxLength}
          error={fields.name}
        />
        <TextInput
          label="Description"
          name="description"
          value={description}
          onChange={setDescription}
          maxLength={ruleOf(UPDATE, 'description').maxLength}
          multiline
          error={fields.description}
        />
        <div className="button-row">
          <Button
            type="submit"
            className="btn btn-primary"
            isDisabled={!canWrite || !detailsChanged || saveDetails.isPending}
          >
            Save name and description
          </Button>
        </div>
      </Form>
      <section className="stack" aria-labelledby="role-permissions">
        <h2 id="role-permissions">Permissions</h2>
        <PermissionPicker
          value={keys}
          onChange={setKeys}
          holds={(key) => permissions.can(key)}
          isReadOnly={!canWrite}
        />
        <div className="button-row">
          <Button
            className="btn btn-primary"
            isDisabled={!canWrite || !keysChanged || savePermissions.isPending}
            onPress={() => savePermissions.mutate()}
          >
            Save permissions
          </Button>
          <Button className="btn" isDisabled={!keysChanged} onPress={() => setKeys(role.permissions)}>
            Undo changes
          </Button>
        </div>
      </section>
      <RoleAlerts role={role} />
      <section className="stack" aria-labelledby="role-delete">
        <h2 id="role-delete">Delete</h2>
        <Confirm
          trigger="Delete role…"
          destructive
          isDisabled={!canWrite}
          disabledReason={
            role.protected ? 'A built-in role cannot be deleted' : canWrite ? undefined : 'Needs roles.write'
          }
          title={`Delete ${role.name}?`}
          consequence={`${role.member_count} ${role.member_count === 1 ? 'member loses' : 'members lose'} its ${role.permissions.length} permissions on their next token. The role and its grants are gone for good.`}
          confirmLabel="Delete role"
          reason={{ required: false, integer: false, maxLength: 300 }}
          write={{
            call: (reason) =>
              unwrap(
                api.DELETE('/v1/admin/roles/{id}', {
                  params: { path: { id: role.id }, query: reason === '' ? {} : { reason } },
                }),
              ),
            success: `Role ${role.key} deleted`,
            failure: 'Could not delete the role',
            invalidates: [['roles']],
            onDone: () => navigate('/roles'),
          }}
        />
      </section>
    </section>
  );
}
