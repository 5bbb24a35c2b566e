import { unwrap } from '@platform-api/sdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Confirm } from '../../ui/confirm';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { instantOf } from '../../ui/time';
import { notify } from '../../ui/toasts';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';

type BulkResult = { user_id: string; ok: boolean; error?: string };

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
  const queryClient = useQueryClient();
  const [roleKey, setRoleKey] = useState('');
  const [action, setAction] = useState<'grant' | 'revoke'>('grant');
  const [expires, setExpires] = useState('');
  const [results, setResults] = useState<BulkResult[] | undefined>();
  const roles = useQuery({
    queryKey: ['roles', 'choices'],
    queryFn: () => unwrap(api.GET('/v1/admin/roles', { params: { query: { per_page: 100 } } })),
    enabled: canAssign && selected.length > 0,
  });
  if (selected.length === 0 && results === undefined) return null;

  const run = async (reason: string) => {
    try {
      const answer = await unwrap(
        api.POST('/v1/admin/users/bulk/roles', {
          body: {
            user_ids: selected,
            role_key: roleKey,
            action,
            ...(action === 'grant' && instantOf(expires) !== undefined ? { expires_at: instantOf(expires) } : {}),
            ...(reason === '' ? {} : { reason }),
          },
        }),
      );
      setResults(answer.results);
      const failed = answer.results.filter((result) => !result.ok).length;
      if (failed === 0)
        notify.success(
          `Role ${roleKey} ${action === 'grant' ? 'granted to' : 'revoked from'} ${answer.results.length} users`,
        );
      else
        notify.success(
          `${answer.results.length - failed} of ${answer.results.length} done; ${failed} refused (see the results)`,
        );
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      onDone();
    } catch (error) {
      notify.failure(`Could not ${action} the role`, error);
      throw error;
    }
  };

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
            title={`${action === 'grant' ? 'Grant' : 'Revoke'} ${roleKey} for ${selected.length} users?`}
            consequence={
              action === 'grant'
                ? `Each selected user gets the permissions of ${roleKey} on their next token.`
                : `Each selected user loses the permissions of ${roleKey} on their next token.`
            }
            confirmLabel={action === 'grant' ? 'Grant' : 'Revoke'}
            destructive={action === 'revoke'}
            reason={ruleOf('POST /v1/admin/users/bulk/roles', 'reason')}
            onConfirm={run}
          />
        </>
      )}
      {results === undefined ? null : (
        <details open className="bulk-results">
          <summary>Results of the last bulk change</summary>
          <ul>
            {results.map((result) => (
              <li key={result.user_id}>
                <code>{result.user_id}</code>: {result.ok ? 'done' : `refused (${result.error ?? 'unknown'})`}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
