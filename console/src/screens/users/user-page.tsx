import { unwrap } from '@platform-api/sdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { ProblemNote } from '../../ui/problem-note';
import { AccountMenu } from './account-menu';
import { EditProfile } from './edit-profile';
import { GrantCredits } from './grant-credits';
import { IdentityRecord } from './identity-record';
import { PlayerHeader } from './player-header';
import { PlayerTimeline } from './timeline';
import { UserRoles } from './user-roles';

/**
 * The player page: their standing at a glance, one timeline of what happened to them, and what
 * staff do from here (credits, roles; the rare account actions in a menu).
 */
export default function UserPage({ id }: { id: string }) {
  const permissions = usePermissions();
  const queryClient = useQueryClient();
  const user = useQuery({
    queryKey: ['user', id],
    queryFn: () => unwrap(api.GET('/v1/admin/users/{id}', { params: { path: { id } } })),
  });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['user', id] }),
      queryClient.invalidateQueries({ queryKey: ['users'] }),
    ]);

  if (user.error !== null) {
    return (
      <section className="stack">
        <Link href="/users">← Users</Link>
        <ProblemNote error={user.error} />
      </section>
    );
  }
  if (user.data === undefined || permissions.isPending) return <p className="loading">Loading…</p>;
  const profile = user.data;
  return (
    <section className="stack player-page">
      <div className="player-top">
        <Link href="/users">← Users</Link>
        <div className="button-row">
          <EditProfile user={profile} />
          <AccountMenu user={profile} permissions={permissions} />
        </div>
      </div>
      <PlayerHeader user={profile} permissions={permissions} />
      <div className="player-columns">
        <PlayerTimeline user={profile} permissions={permissions} />
        <div className="stack">
          {permissions.can('billing.write', 'billing.grant') ? (
            <GrantCredits user={profile} />
          ) : permissions.can('billing.read') ? (
            <p className="hint">Granting credits needs billing.grant or billing.write.</p>
          ) : null}
          <UserRoles user={profile} permissions={permissions} onChanged={refresh} />
          <section className="stack" aria-labelledby="identity-record">
            <h2 id="identity-record">Sign-in record</h2>
            <IdentityRecord userId={profile.id} />
          </section>
        </div>
      </div>
    </section>
  );
}
