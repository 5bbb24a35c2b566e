import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { ActorLink, UserLink } from '../../ui/names';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { RuntimeNav } from './runtime-nav';
import {
  EndSession,
  endReasonOf,
  isLive,
  SESSION_STATUS_LABELS,
  SessionDuration,
  StatusBadge,
  usePlayerEmail,
} from './runtime-parts';

/** One game session: who plays what where, since when; end it while it runs. */
export default function SessionPage({ id }: { id: string }) {
  const session = useQuery({
    queryKey: ['runtime', 'session', id],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/sessions/{id}', { params: { path: { id } } })),
    refetchInterval: (query) => (query.state.data !== undefined && isLive(query.state.data) ? 5_000 : false),
  });
  const player = usePlayerEmail(session.data?.user_id ?? '');

  if (session.error !== null) {
    return (
      <section className="stack">
        <Link href="/runtime/sessions">← Game sessions</Link>
        <ProblemNote error={session.error} />
      </section>
    );
  }
  if (session.data === undefined) return <p className="loading">Loading…</p>;
  const current = session.data;
  return (
    <section className="stack">
      <Link href="/runtime/sessions">← Game sessions</Link>
      <RuntimeNav />
      <header className="page-header">
        <h1 className="runtime-title">
          {current.game_title}
          {player === undefined ? null : ` · ${player}`}
        </h1>
        <StatusBadge status={current.status} label={SESSION_STATUS_LABELS[current.status]} />
        {isLive(current) ? <EndSession session={current} /> : null}
      </header>
      <dl className="facts">
        <dt>Player</dt>
        <dd>
          <UserLink id={current.user_id} />
        </dd>
        <dt>Game</dt>
        <dd>
          {current.game_title} <span className="muted">({current.game_slug})</span>
        </dd>
        <dt>Node</dt>
        <dd>
          {current.node_id === null ? (
            <span className="muted">none yet</span>
          ) : (
            <Link href={`/runtime/nodes/${encodeURIComponent(current.node_id)}`}>{current.node_id}</Link>
          )}
        </dd>
        <dt>Pool</dt>
        <dd>
          {current.pool_id === null ? (
            <span className="muted">chosen by the runtime</span>
          ) : (
            <Link href={`/runtime/pools/${encodeURIComponent(current.pool_id)}`}>{current.pool_id}</Link>
          )}
        </dd>
        <dt>Asked for</dt>
        <dd>
          <Time value={current.created_at} />
        </dd>
        <dt>Started</dt>
        <dd>
          <Time value={current.started_at} />
        </dd>
        <dt>Duration</dt>
        <dd>
          <SessionDuration session={current} />
        </dd>
        {current.ended_at === null ? null : (
          <>
            <dt>Ended</dt>
            <dd>
              <Time value={current.ended_at} /> · {endReasonOf(current)}
              {current.stopped_by === null ? null : (
                <>
                  {' '}
                  by <ActorLink id={current.stopped_by} />
                </>
              )}
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
