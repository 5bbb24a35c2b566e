import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { DataTable } from '../../ui/data-table';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';

/** The user's login sessions: where and when they signed in, and which ended. */
export function LoginSessions({ userId }: { userId: string }) {
  const sessions = useQuery({
    queryKey: ['user', userId, 'login-sessions'],
    queryFn: () => unwrap(api.GET('/v1/admin/users/{id}/sessions', { params: { path: { id: userId } } })),
  });
  return (
    <section aria-labelledby="login-sessions" className="stack">
      <h2 id="login-sessions">Login sessions</h2>
      {sessions.error === null ? null : <ProblemNote error={sessions.error} />}
      <DataTable
        label="Login sessions"
        items={(sessions.data?.data ?? []).map((session) => ({ ...session, id: session.session_id }))}
        emptyText={sessions.isPending ? 'Loading…' : 'No login sessions.'}
        columns={[
          { id: 'agent', name: 'Device', isRowHeader: true, render: (session) => session.user_agent ?? 'unknown' },
          { id: 'ip', name: 'Last address', render: (session) => session.ip ?? '' },
          { id: 'first', name: 'First seen', render: (session) => <Time value={session.first_seen_at} /> },
          { id: 'last', name: 'Last seen', render: (session) => <Time value={session.last_seen_at} /> },
          {
            id: 'revoked',
            name: 'Ended',
            render: (session) => (session.revoked_at === null ? 'active' : <Time value={session.revoked_at} />),
          },
        ]}
      />
    </section>
  );
}

/** The user's game sessions on the runtime, newest first (the first page of the cursor list). */
export function GameSessions({ userId }: { userId: string }) {
  const sessions = useQuery({
    queryKey: ['user', userId, 'game-sessions'],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/sessions', { params: { query: { user_id: userId, limit: 20 } } })),
  });
  return (
    <section aria-labelledby="game-sessions" className="stack">
      <h2 id="game-sessions">Game sessions</h2>
      {sessions.error === null ? null : <ProblemNote error={sessions.error} />}
      <DataTable
        label="Game sessions"
        items={sessions.data?.data ?? []}
        emptyText={sessions.isPending ? 'Loading…' : 'No game sessions.'}
        columns={[
          {
            id: 'game',
            name: 'Game',
            isRowHeader: true,
            render: (session) => session.game_title ?? session.game_slug ?? '',
          },
          { id: 'status', name: 'Status', render: (session) => session.status },
          {
            id: 'started',
            name: 'Started',
            render: (session) => <Time value={session.started_at ?? session.created_at} />,
          },
          { id: 'ended', name: 'Ended', render: (session) => <Time value={session.ended_at} /> },
        ]}
      />
      {sessions.data?.meta.next_cursor ? <p className="hint">Showing the 20 most recent.</p> : null}
    </section>
  );
}
