import { type EventFrame, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../api/client';
import { usePermissions } from '../api/permissions';
import { useLiveFeed } from '../api/realtime';
import { usePanicState } from '../shell/maintenance-banner';
import { ActorLink, RoleLink, UserLink } from '../ui/names';
import { ProblemNote } from '../ui/problem-note';
import { Time } from '../ui/time';

const STATUSES = ['active', 'banned', 'deleted'] as const;

/** The users total by status: one row of each list, whose `meta.total` is the count. */
function useUserCounts(enabled: boolean) {
  return useQuery({
    queryKey: ['users', 'counts'],
    enabled,
    queryFn: async () => {
      const totals = await Promise.all(
        STATUSES.map(async (status) => {
          const page = await unwrap(api.GET('/v1/admin/users', { params: { query: { status, per_page: 1 } } }));
          return [status, page.meta.total ?? 0] as const;
        }),
      );
      return Object.fromEntries(totals) as Record<(typeof STATUSES)[number], number>;
    },
  });
}

export default function HomePage() {
  const permissions = usePermissions();
  const canReadOps = permissions.can('ops.read', 'ops.panic');
  const panic = usePanicState(permissions);
  const counts = useUserCounts(permissions.can('users.read'));
  const incidents = useQuery({
    queryKey: ['ops', 'incidents', 'recent'],
    enabled: canReadOps,
    queryFn: () => unwrap(api.GET('/v1/admin/ops/incidents', { params: { query: { per_page: 5 } } })),
  });
  const feed = useLiveFeed();

  return (
    <section className="stack">
      <h1>Home</h1>
      <div className="cards">
        {canReadOps ? (
          <article className="card" aria-labelledby="maintenance-heading">
            <h2 id="maintenance-heading">Maintenance</h2>
            {panic.error === null ? null : <ProblemNote error={panic.error} />}
            {panic.data === undefined ? null : (
              <>
                <p className={`level level-${panic.data.level}`} data-testid="maintenance-level">
                  {panic.data.level}
                </p>
                {panic.data.set_at === null ? null : (
                  <p className="muted">
                    {panic.data.auto ? 'Set by incident monitoring' : 'Set by a staff member'} at{' '}
                    <Time value={panic.data.set_at} />
                    {panic.data.reason === null ? '' : `: ${panic.data.reason}`}
                  </p>
                )}
              </>
            )}
          </article>
        ) : null}
        {counts.data === undefined ? null : (
          <article className="card" aria-labelledby="users-heading">
            <h2 id="users-heading">Users</h2>
            <ul className="counts">
              {STATUSES.map((status) => (
                <li key={status}>
                  <Link href={`/users?status=${status}`}>
                    <span className="count">{counts.data[status]}</span> {status}
                  </Link>
                </li>
              ))}
            </ul>
          </article>
        )}
      </div>
      {canReadOps ? (
        <section aria-labelledby="incidents-heading" className="stack">
          <h2 id="incidents-heading">Recent maintenance changes</h2>
          {incidents.error === null ? null : <ProblemNote error={incidents.error} />}
          {incidents.data?.data.length === 0 ? <p className="muted">None yet.</p> : null}
          <ol className="timeline">
            {(incidents.data?.data ?? []).map((incident) => (
              <li key={incident.id}>
                <Time value={incident.created_at} />: {incident.previous_level} → <strong>{incident.level}</strong>
                {incident.auto ? (
                  ` (rule ${incident.rule_key ?? 'unknown'})`
                ) : (
                  <>
                    {' by '}
                    <ActorLink id={incident.set_by} />
                  </>
                )}
                {incident.reason === null ? '' : `: ${incident.reason}`}
              </li>
            ))}
          </ol>
        </section>
      ) : null}
      <section aria-labelledby="feed-heading" className="stack">
        <h2 id="feed-heading">Live events</h2>
        <p className="muted">
          {feed.connected ? 'Connected: staff actions appear here as they happen.' : 'Connecting to live events…'}
        </p>
        <ol className="feed" aria-live="polite" data-testid="event-feed">
          {feed.events.map((event) => (
            <li key={`${event.channel}-${event.id}`}>
              <FeedLine event={event} />
            </li>
          ))}
        </ol>
      </section>
    </section>
  );
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** One live event: when, who did it, what, and the user and role it concerns, each a link. */
function FeedLine({ event }: { event: EventFrame }) {
  const userId = text(event.payload.user_id);
  const roleId = text(event.payload.role_id);
  const roleName = text(event.payload.role_name) ?? text(event.payload.role_key);
  return (
    <>
      <Time value={event.at} /> <ActorLink id={event.actor_id ?? null} /> <code>{event.name}</code>
      {userId === undefined ? null : (
        <>
          {' '}
          user <UserLink id={userId} />
        </>
      )}
      {roleId === undefined || roleName === undefined ? null : (
        <>
          {' '}
          role <RoleLink id={roleId} name={roleName} />
        </>
      )}
    </>
  );
}
