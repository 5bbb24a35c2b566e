import { unwrap } from '@platform-api/sdk';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import type { Permissions } from '../../api/permissions';
import { Confirm } from '../../ui/confirm';
import { notify } from '../../ui/toasts';
import type { UserProfile } from './types';

const missing = (permissions: Permissions, key: string) => (permissions.can(key) ? undefined : `Needs ${key}`);

/** Ban, unban, sign out everywhere, delete (soft or hard) and restore: each confirmed with a reason. */
export function UserActions({
  user,
  permissions,
  onChanged,
}: {
  user: UserProfile;
  permissions: Permissions;
  onChanged: () => Promise<unknown>;
}) {
  const [, navigate] = useLocation();
  const path = { params: { path: { id: user.id } } };
  const name = user.email ?? user.id;
  /** Runs a write, reports it, and refreshes what it changed; a failure is reported and rethrown. */
  const act = (done: string, failed: string, write: () => Promise<unknown>) => async () => {
    try {
      await write();
      notify.success(done);
      await onChanged();
    } catch (error) {
      notify.failure(failed, error);
      throw error;
    }
  };
  const writeMissing = missing(permissions, 'users.write');
  const deleteMissing = missing(permissions, 'users.delete');

  return (
    <section className="actions" aria-labelledby="account-actions">
      <h2 id="account-actions">Account</h2>
      <div className="button-row">
        {user.status === 'active' ? (
          <Confirm
            trigger="Ban…"
            destructive
            isDisabled={writeMissing !== undefined}
            disabledReason={writeMissing}
            title={`Ban ${name}?`}
            consequence="They are signed out everywhere and cannot sign in or use the platform until unbanned."
            confirmLabel="Ban"
            reason={ruleOf('POST /v1/admin/users/{id}/ban', 'reason')}
            onConfirm={(reason) =>
              act(`${name} is banned`, 'Could not ban', () =>
                unwrap(api.POST('/v1/admin/users/{id}/ban', { ...path, body: { reason } })),
              )()
            }
          />
        ) : null}
        {user.status === 'banned' ? (
          <Confirm
            trigger="Unban…"
            isDisabled={writeMissing !== undefined}
            disabledReason={writeMissing}
            title={`Unban ${name}?`}
            consequence="They can sign in and use the platform again."
            confirmLabel="Unban"
            reason={ruleOf('POST /v1/admin/users/{id}/unban', 'reason')}
            onConfirm={(reason) =>
              act(`${name} is unbanned`, 'Could not unban', () =>
                unwrap(api.POST('/v1/admin/users/{id}/unban', { ...path, body: { reason } })),
              )()
            }
          />
        ) : null}
        {user.status !== 'deleted' ? (
          <Confirm
            trigger="Sign out everywhere…"
            isDisabled={writeMissing !== undefined}
            disabledReason={writeMissing}
            title={`Sign ${name} out everywhere?`}
            consequence="Every login session ends; their current tokens stop working."
            confirmLabel="Sign out"
            reason={ruleOf('POST /v1/admin/users/{id}/sign-out', 'reason')}
            onConfirm={(reason) =>
              act(`${name} is signed out everywhere`, 'Could not sign out', () =>
                unwrap(api.POST('/v1/admin/users/{id}/sign-out', { ...path, body: { reason } })),
              )()
            }
          />
        ) : null}
        {user.status !== 'deleted' ? (
          <Confirm
            trigger="Delete…"
            destructive
            isDisabled={deleteMissing !== undefined}
            disabledReason={deleteMissing}
            title={`Delete ${name}?`}
            consequence="The account is closed and hidden from lists; it can be restored later."
            confirmLabel="Delete"
            reason={ruleOf('DELETE /v1/admin/users/{id}', 'reason')}
            onConfirm={(reason) =>
              act(`${name} is deleted`, 'Could not delete', () =>
                unwrap(api.DELETE('/v1/admin/users/{id}', { ...path, body: { reason, hard: false } })),
              )()
            }
          />
        ) : (
          <Confirm
            trigger="Restore…"
            isDisabled={deleteMissing !== undefined}
            disabledReason={deleteMissing}
            title={`Restore ${name}?`}
            consequence="Within the deletion's grace period, the account is back as it was before it (a deletion the player asked for: active again, and the purge is called off). Past it, the service refuses."
            confirmLabel="Restore"
            reason={ruleOf('POST /v1/admin/users/{id}/restore', 'reason')}
            onConfirm={(reason) =>
              act(`${name} is restored`, 'Could not restore', () =>
                unwrap(api.POST('/v1/admin/users/{id}/restore', { ...path, body: { reason } })),
              )()
            }
          />
        )}
        <Confirm
          trigger="Delete for good…"
          destructive
          isDisabled={deleteMissing !== undefined}
          disabledReason={deleteMissing}
          title={`Delete ${name} for good?`}
          consequence="The account, its profile and its personal data are erased at the identity provider and here. This cannot be undone."
          confirmLabel="Delete for good"
          reason={ruleOf('DELETE /v1/admin/users/{id}', 'reason')}
          typeToConfirm="DELETE"
          onConfirm={async (reason) => {
            try {
              await unwrap(api.DELETE('/v1/admin/users/{id}', { ...path, body: { reason, hard: true } }));
              notify.success(`${name} is deleted for good`);
              navigate('/users');
            } catch (error) {
              notify.failure('Could not delete', error);
              throw error;
            }
          }}
        />
      </div>
    </section>
  );
}
