import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Confirm } from '../../ui/confirm';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { RoleLink, UserLink } from '../../ui/names';
import { instantOf } from '../../ui/time';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';

type BulkResult = { user_id: string; ok: boolean; error?: string };
interface LastChange {
  action: 'grant' | 'revoke';
  role: { id: string; key: string; name: string } | undefined;
  roleKey: string;
  results: BulkResult[];
}

/** The SQLSTATEs the API documents for a refused user, as sentences (the code stays beside them). */
const REFUSALS: Record<string, string> = {
  '23503': 'No such user (or the role no longer exists).',
  '23514': 'The platform must keep an active owner: this one keeps the owner role.',
};
const refusalSentence = (code: string | undefined): string =>
  (code === undefined ? undefined : REFUSALS[code]) ?? 'The database refused this change.';

/** Grant or revoke one role for the selected users (at most 500), then show each user's result. */
export function BulkRoles({
  selected,
  canAssign,
  onDone,
}: {
  selected: string[];
  canAssign: boolean;
  onDone: () => void;
}) {
  const [roleKey, setRoleKey] = useState('');
  const [action, setAction] = useState<'grant' | 'revoke'>('grant');
  const [expires, setExpires] = useState('');
  const [last, setLast] = useState<LastChange | undefined>();
  const roles = useQuery({
    queryKey: ['roles', 'choices'],
    queryFn: () => unwrap(api.GET('/v1/admin/roles', { params: { query: { per_page: 100 } } })),
    enabled: canAssign && selected.length > 0,
  });
  if (selected.length === 0 && last === undefined) return null;
  const role = roles.data?.data.find((each) => each.key === roleKey);
  const roleName = role?.name ?? roleKey;

  return (
    <section className="bulk-bar" aria-label="Selected users">
      {selected.length === 0 ? null : (
        <>
          <span>{selected.length} selected</span>
          <ChoiceInput
            label="Role"
            value={roleKey}
            choices={[
              { id: '', label: 'Choose a role' },
              ...(roles.data?.data ?? []).map((role) => ({ id: role.key, label: role.name })),
            ]}
            onChange={setRoleKey}
          />
          <ChoiceInput
            label="Action"
            value={action}
            choices={[
              { id: 'grant', label: 'Grant' },
              { id: 'revoke', label: 'Revoke' },
            ]}
            onChange={(value) => setAction(value === 'revoke' ? 'revoke' : 'grant')}
          />
          {action === 'grant' ? (
            <TextInput label="Expires (optional)" type="datetime-local" value={expires} onChange={setExpires} />
          ) : null}
          <Confirm
            trigger={action === 'grant' ? 'Grant role…' : 'Revoke role…'}
            isDisabled={!canAssign || roleKey === '' || selected.length > 500}
            disabledReason={
              !canAssign ? 'Needs roles.assign' : selected.length > 500 ? 'At most 500 users at once' : undefined
            }
            title={`${action === 'grant' ? 'Grant' : 'Revoke'} ${roleName} for ${selected.length} users?`}
            consequence={
              action === 'grant'
                ? `Each selected user gets the permissions of ${roleName} on their next token.`
                : `Each selected user loses the permissions of ${roleName} on their next token.`
            }
            confirmLabel={action === 'grant' ? 'Grant' : 'Revoke'}
            destructive={action === 'revoke'}
            reason={ruleOf('POST /v1/admin/users/bulk/roles', 'reason')}
            write={{
              call: (reason) =>
                unwrap(
                  api.POST('/v1/admin/users/bulk/roles', {
                    body: {
                      user_ids: selected,
                      role_key: roleKey,
                      action,
                      ...(action === 'grant' && instantOf(expires) !== undefined
                        ? { expires_at: instantOf(expires) }
                        : {}),
                      ...(reason === '' ? {} : { reason }),
                    },
                  }),
                ),
              success: (answer) => {
                const failed = answer.results.filter((result) => !result.ok).length;
                return failed === 0
                  ? `Role ${roleKey} ${action === 'grant' ? 'granted to' : 'revoked from'} ${answer.results.length} users`
                  : `${answer.results.length - failed} of ${answer.results.length} done; ${failed} refused (see the results)`;
              },
              failure: `Could not ${action} the role`,
              invalidates: [['users']],
              onDone: (answer) => {
                setLast({ action, role, roleKey, results: answer.results });
                onDone();
              },
            }}
          />
        </>
      )}
      {last === undefined ? null : <BulkResults last={last} />}
    </section>
  );
}

/** Each user's outcome, named and linked; a refusal in words beside its SQLSTATE. */
function BulkResults({ last }: { last: LastChange }) {
  const role =
    last.role === undefined ? <code>{last.roleKey}</code> : <RoleLink id={last.role.id} name={last.role.name} />;
  return (
    <details open className="bulk-results">
      <summary>Results of the last bulk change</summary>
      <p>
        {last.action === 'grant' ? 'Granted' : 'Revoked'} {role}:
      </p>
      <ul aria-label="Results of the last bulk change">
        {last.results.map((result) => (
          <li key={result.user_id}>
            <UserLink id={result.user_id} />:{' '}
            {result.ok ? (
              'done'
            ) : (
              <>
                refused: {refusalSentence(result.error)} <code>{result.error ?? 'unknown'}</code>
              </>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}
