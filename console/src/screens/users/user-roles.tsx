import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import type { Permissions } from '../../api/permissions';
import { Confirm } from '../../ui/confirm';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { instantOf, Time } from '../../ui/time';
import { notify } from '../../ui/toasts';
import type { UserProfile } from './types';

/**
 * The roles a user holds, a grant (with an optional expiry) and a revoke: the bulk operation with
 * one user, whose per-user result says why a grant was refused.
 */
export function UserRoles({
  user,
  permissions,
  onChanged,
}: {
  user: UserProfile;
  permissions: Permissions;
  onChanged: () => Promise<unknown>;
}) {
  const canAssign = permissions.can('roles.assign');
  const [roleKey, setRoleKey] = useState('');
  const [expires, setExpires] = useState('');
  const roles = useQuery({
    queryKey: ['roles', 'choices'],
    queryFn: () => unwrap(api.GET('/v1/admin/roles', { params: { query: { per_page: 100 } } })),
    enabled: canAssign,
  });
  const change = async (action: 'grant' | 'revoke', key: string, reason: string, expiresAt?: string) => {
    try {
      const answer = await unwrap(
        api.POST('/v1/admin/users/bulk/roles', {
          body: {
            user_ids: [user.id],
            role_key: key,
            action,
            ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
            ...(reason === '' ? {} : { reason }),
          },
        }),
      );
      const result = answer.results[0];
      if (result?.ok !== true) throw new Error(`refused: ${result?.error ?? 'no result'}`);
      notify.success(action === 'grant' ? `Role ${key} granted` : `Role ${key} revoked`);
      setRoleKey('');
      setExpires('');
      await onChanged();
    } catch (error) {
      const refused = error instanceof Error && error.message.startsWith('refused');
      if (refused) notify.success(`The service refused to ${action} ${key} (${error.message.slice(9)})`);
      else notify.failure(`Could not ${action} ${key}`, error);
      throw error;
    }
  };
  const notHeld = (roles.data?.data ?? []).filter((role) => !user.roles.some((held) => held.key === role.key));

  return (
    <section aria-labelledby="user-roles" className="stack">
      <h2 id="user-roles">Roles</h2>
      {user.roles.length === 0 ? <p className="muted">No roles: a player.</p> : null}
      <ul className="role-list">
        {user.roles.map((role) => (
          <li key={role.key}>
            <strong>{role.name}</strong> <code>{role.key}</code>
            {role.expires_at === null ? null : (
              <span>
                {' '}
                until <Time value={role.expires_at} />
              </span>
            )}
            <Confirm
              trigger="Revoke…"
              triggerClassName="btn btn-quiet"
              destructive
              isDisabled={!canAssign}
              disabledReason={canAssign ? undefined : 'Needs roles.assign'}
              title={`Revoke ${role.name}?`}
              consequence={`${user.email ?? user.id} loses the permissions of ${role.key} on their next token.`}
              confirmLabel="Revoke"
              reason={ruleOf('POST /v1/admin/users/bulk/roles', 'reason')}
              onConfirm={(reason) => change('revoke', role.key, reason)}
            />
          </li>
        ))}
      </ul>
      {canAssign ? (
        <div className="inline-form">
          <ChoiceInput
            label="Role to grant"
            value={roleKey}
            choices={[
              { id: '', label: 'Choose a role' },
              ...notHeld.map((role) => ({ id: role.key, label: role.name })),
            ]}
            onChange={setRoleKey}
          />
          <TextInput label="Expires (optional)" type="datetime-local" value={expires} onChange={setExpires} />
          <Confirm
            trigger="Grant…"
            isDisabled={roleKey === ''}
            title={`Grant ${roleKey}?`}
            consequence={
              <>
                {user.email ?? user.id} gets the permissions of {roleKey} on their next token
                {instantOf(expires) === undefined ? '' : ', until the expiry'}.
              </>
            }
            confirmLabel="Grant"
            reason={ruleOf('POST /v1/admin/users/bulk/roles', 'reason')}
            onConfirm={(reason) => change('grant', roleKey, reason, instantOf(expires))}
          />
        </div>
      ) : (
        <p className="hint">Granting roles needs roles.assign.</p>
      )}
    </section>
  );
}
