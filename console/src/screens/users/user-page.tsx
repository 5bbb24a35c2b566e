import { unwrap } from '@platform-api/sdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { CreditLedger } from './credit-ledger';
import { GameSessions, LoginSessions } from './user-sessions';
import { UserActions } from './user-actions';
import { UserRoles } from './user-roles';

/** One user: profile and status, what staff may do to the account, roles, sessions and credits. */
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
  if (user.data === undefined) return <p className="loading">Loading…</p>;
  const profile = user.data;
  return (
    <section className="stack">
      <Link href="/users">← Users</Link>
      <header className="page-header">
        <h1>{profile.display_name ?? profile.email ?? profile.id}</h1>
        <span className={`status status-${profile.status}`}>{profile.status}</span>
      </header>
      <dl className="facts">
        <dt>Email</dt>
        <dd>{profile.email ?? '—'}</dd>
        <dt>User id</dt>
        <dd>
          <code>{profile.id}</code>
        </dd>
        <dt>Sign-in provider</dt>
        <dd>{profile.provider ?? '—'}</dd>
        <dt>Tier</dt>
        <dd>{profile.tier_detail?.name ?? profile.tier ?? 'none'}</dd>
        <dt>Joined</dt>
        <dd>
          <Time value={profile.created_at} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Time value={profile.last_seen_at} />
        </dd>
        {profile.status_reason === null ? null : (
          <>
            <dt>Status reason</dt>
            <dd>
              {profile.status_reason} (<Time value={profile.status_changed_at} />)
            </dd>
          </>
        )}
      </dl>
      <UserActions user={profile} permissions={permissions} onChanged={refresh} />
      <UserRoles user={profile} permissions={permissions} onChanged={refresh} />
      {permissions.can('users.read') ? <LoginSessions userId={profile.id} /> : null}
      {permissions.can('runtime.read') ? <GameSessions userId={profile.id} /> : null}
      {permissions.can('billing.read') ? <CreditLedger userId={profile.id} permissions={permissions} /> : null}
    </section>
  );
}
