import { type components, unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { Confirm } from '../../ui/confirm';
import { DataTable, type TableColumn } from '../../ui/data-table';
import { UserLink } from '../../ui/names';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';

export type RuntimeNode = components['schemas']['RuntimeNode'];
export type RuntimePool = components['schemas']['RuntimePool'];
export type GameSession = components['schemas']['GameSession'];
export type SessionStatus = GameSession['status'];

export const NEEDS_WRITE = 'Needs runtime.write';

/**
 * A node or pool id from the address: the router decodes only what `decodeURI` does, so an id
 * with `/`, `?` or `#` (encoded by the links) still needs its components decoded.
 */
export function idFromAddress(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
export const SESSION_STATUS_LABELS: Record<SessionStatus, string> = {
  starting: 'starting',
  active: 'running',
  ended: 'ended',
  failed: 'failed',
};
const END_REASONS: Record<NonNullable<GameSession['end_reason']>, string> = {
  user_stopped: 'stopped by the player',
  staff_stopped: 'ended by staff',
  runtime_ended: 'ended on the runtime',
  start_failed: 'failed to start',
};
export const endReasonOf = (session: GameSession) =>
  session.end_reason === null ? null : END_REASONS[session.end_reason];
export const isLive = (session: GameSession) => session.status === 'starting' || session.status === 'active';

/** A status as a badge (`runtime-status-<status>`). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return <span className={`status runtime-status-${status}`}>{label ?? status}</span>;
}

/** Seconds as `h:mm:ss` (or `m:ss` under an hour). */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** The current time, once a second (for durations that tick while a session runs). */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

/** How long a session has run (from its start, else its creation), ticking while it is live. */
export function SessionDuration({ session }: { session: GameSession }) {
  const live = isLive(session);
  const now = useNow(live);
  const from = new Date(session.started_at ?? session.created_at).getTime();
  const to = session.ended_at === null ? now : new Date(session.ended_at).getTime();
  const seconds = (to - from) / 1000;
  return (
    <time className="runtime-duration" dateTime={`PT${Math.max(0, Math.floor(seconds))}S`}>
      {formatDuration(seconds)}
    </time>
  );
}

/** A player's email by id, from the same cache UserLink reads (names.tsx); undefined until known. */
export function usePlayerEmail(id: string): string | undefined {
  const permissions = usePermissions();
  const user = useQuery({
    queryKey: ['user-name', id],
    enabled: id !== '' && permissions.can('users.read'),
    staleTime: 5 * 60_000,
    retry: false,
    queryFn: () => unwrap(api.GET('/v1/admin/users/{id}', { params: { path: { id } } })),
  });
  return user.data?.email ?? user.data?.display_name ?? undefined;
}

/** Ends a live session on the runtime, after a confirmation naming the player and the game. */
export function EndSession({ session, onEnded }: { session: GameSession; onEnded?: () => void }) {
  const permissions = usePermissions();
  const canWrite = permissions.can('runtime.write');
  const who = usePlayerEmail(session.user_id) ?? 'the player';
  return (
    <Confirm<GameSession>
      trigger="End…"
      destructive
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      title={`End ${who}'s session of ${session.game_title}?`}
      consequence={
        `The game stops on ${session.node_id ?? 'its node'} now and ${who} is disconnected; ` +
        'whatever they had not saved in the game is lost. They can start a new session.'
      }
      confirmLabel="End session"
      reason={ruleOf('POST /v1/admin/runtime/sessions/{id}/stop', 'reason')}
      write={{
        call: (reason) =>
          unwrap(
            api.POST('/v1/admin/runtime/sessions/{id}/stop', {
              params: { path: { id: session.id } },
              body: reason === '' ? {} : { reason },
            }),
          ),
        success: `Session of ${session.game_title} ended`,
        failure: 'Could not end the session',
        invalidates: [['runtime']],
        onDone: () => onEnded?.(),
      }}
    />
  );
}

export interface SessionFilters {
  user_id?: string;
  pool_id?: string;
  node_id?: string;
  status?: SessionStatus;
}

const PER_PAGE = 25;

/**
 * Game sessions, newest first, a page at a time (the API pages by cursor: Next follows
 * `meta.next_cursor`, Previous goes back through the cursors seen). Refreshes itself every few
 * seconds, so sessions ending elsewhere show.
 */
export function SessionsTable({
  label,
  filters,
  emptyText,
}: {
  label: string;
  /** With `node_id`, the table leaves out the node column (every row would say the same). */
  filters: SessionFilters;
  emptyText: string;
}) {
  const [cursors, setCursors] = useState<string[]>([]);
  const filterKey = JSON.stringify(filters);
  const [lastKey, setLastKey] = useState(filterKey);
  if (lastKey !== filterKey) {
    setLastKey(filterKey);
    setCursors([]);
  }
  const cursor = cursors.at(-1);
  const query = { ...filters, limit: PER_PAGE, ...(cursor === undefined ? {} : { cursor }) };
  const list = useQuery({
    queryKey: ['runtime', 'sessions', query],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/sessions', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
  });
  const next = list.data?.meta.next_cursor ?? null;
  return (
    <>
      {list.error === null ? null : <ProblemNote error={list.error} />}
      <DataTable<GameSession>
        label={label}
        items={list.data?.data ?? []}
        emptyText={list.isPending ? 'Loading…' : emptyText}
        columns={(
          [
            {
              id: 'player',
              name: 'Player',
              render: (session) => <UserLink id={session.user_id} />,
            },
            {
              id: 'game',
              name: 'Game',
              isRowHeader: true,
              render: (session) => (
                <Link href={`/runtime/sessions/${session.id}`} className="name-link">
                  {session.game_title}
                </Link>
              ),
            },
            {
              id: 'node',
              name: 'Node',
              render: (session) =>
                session.node_id === null ? (
                  <span className="muted">none yet</span>
                ) : (
                  <Link href={`/runtime/nodes/${encodeURIComponent(session.node_id)}`}>{session.node_id}</Link>
                ),
            },
            {
              id: 'status',
              name: 'Status',
              render: (session) => (
                <StatusBadge status={session.status} label={SESSION_STATUS_LABELS[session.status]} />
              ),
            },
            {
              id: 'started',
              name: 'Started',
              render: (session) => <Time value={session.started_at ?? session.created_at} />,
            },
            { id: 'duration', name: 'Duration', render: (session) => <SessionDuration session={session} /> },
            {
              id: 'actions',
              name: 'Actions',
              render: (session) => (isLive(session) ? <EndSession session={session} /> : endReasonOf(session)),
            },
          ] satisfies TableColumn<GameSession>[]
        ).filter((column) => column.id !== 'node' || filters.node_id === undefined)}
      />
      <nav className="pager" aria-label={`Pages of ${label.toLowerCase()}`}>
        <Button className="btn" isDisabled={cursors.length === 0} onPress={() => setCursors(cursors.slice(0, -1))}>
          Previous
        </Button>
        <span>Page {cursors.length + 1}</span>
        <Button
          className="btn"
          isDisabled={next === null}
          onPress={() => next !== null && setCursors([...cursors, next])}
        >
          Next
        </Button>
      </nav>
    </>
  );
}

/** Sessions running on a node out of its slots, with a meter. */
export function Capacity({ node }: { node: RuntimeNode }) {
  const { used, slots } = node.capacity;
  return (
    <span className="runtime-capacity">
      {used} of {slots} slots
      <meter
        className="runtime-meter"
        min={0}
        max={Math.max(slots, 1)}
        value={used}
        aria-label={`${node.id}: ${used} of ${slots} session slots in use`}
      />
    </span>
  );
}
