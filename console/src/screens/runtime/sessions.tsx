import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api } from '../../api/client';
import { useSearchState } from '../../api/search-state';
import { ChoiceInput } from '../../ui/fields';
import { UserLink } from '../../ui/names';
import { RuntimeNav } from './runtime-nav';
import { type SessionFilters, type SessionStatus, SessionsTable } from './runtime-parts';

const FILTERS = ['status', 'pool_id', 'node_id', 'user_id'] as const;
/** The list opens on the sessions running now; `any` shows every status. */
const STATUS_CHOICES = [
  { id: '', label: 'Running' },
  { id: 'starting', label: 'Starting' },
  { id: 'ended', label: 'Ended' },
  { id: 'failed', label: 'Failed' },
  { id: 'any', label: 'Any' },
];

/**
 * Game sessions (running ones unless another status is chosen): the player, the game, the node,
 * how long; end one. `?user_id=` shows one player's (a link from elsewhere can open it so).
 */
export default function SessionsPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const pools = useQuery({
    queryKey: ['runtime', 'pools'],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/pools')),
  });
  const nodes = useQuery({
    queryKey: ['runtime', 'nodes', {}],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/nodes', { params: { query: {} } })),
  });
  const status: SessionStatus | undefined =
    filters.status === '' ? 'active' : filters.status === 'any' ? undefined : (filters.status as SessionStatus);
  const query: SessionFilters = {
    ...(status === undefined ? {} : { status }),
    ...(filters.pool_id === '' ? {} : { pool_id: filters.pool_id }),
    ...(filters.node_id === '' ? {} : { node_id: filters.node_id }),
    ...(filters.user_id === '' ? {} : { user_id: filters.user_id }),
  };
  return (
    <section className="stack">
      <h1>Runtime</h1>
      <RuntimeNav />
      <h2>Game sessions</h2>
      {filters.user_id === '' ? null : (
        <p className="button-row">
          <span>
            Of the player <UserLink id={filters.user_id} />
          </span>
          <Button className="btn btn-quiet" onPress={() => setFilters({ user_id: '' })}>
            Every player
          </Button>
        </p>
      )}
      <form className="filters" aria-label="Filter game sessions" onSubmit={(event) => event.preventDefault()}>
        <ChoiceInput
          label="Status"
          value={filters.status}
          choices={STATUS_CHOICES}
          onChange={(value) => setFilters({ status: value })}
        />
        <ChoiceInput
          label="Pool"
          value={filters.pool_id}
          choices={[
            { id: '', label: 'Any' },
            ...(pools.data?.data ?? []).map((pool) => ({ id: pool.id, label: pool.name })),
          ]}
          onChange={(pool_id) => setFilters({ pool_id })}
        />
        <ChoiceInput
          label="Node"
          value={filters.node_id}
          choices={[
            { id: '', label: 'Any' },
            ...(nodes.data?.data ?? []).map((node) => ({ id: node.id, label: node.id })),
          ]}
          onChange={(node_id) => setFilters({ node_id })}
        />
      </form>
      <SessionsTable
        label="Game sessions"
        filters={query}
        emptyText={status === 'active' ? 'No game session is running.' : 'No game session matches these filters.'}
      />
    </section>
  );
}
