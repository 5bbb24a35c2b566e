import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { presentValues, useSearchState } from '../../api/search-state';
import { DataTable } from '../../ui/data-table';
import { ChoiceInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { Capacity, type RuntimeNode, StatusBadge } from './runtime-parts';
import { RuntimeNav } from './runtime-nav';

type NodeStatus = RuntimeNode['status'];
const FILTERS = ['pool_id', 'status'] as const;

/** The runtime's nodes: status, pool, capacity (the sessions they run), images; filter by pool and status. */
export default function NodesPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const query = presentValues({ pool_id: filters.pool_id, status: filters.status }) as {
    pool_id?: string;
    status?: NodeStatus;
  };
  const nodes = useQuery({
    queryKey: ['runtime', 'nodes', query],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/nodes', { params: { query } })),
    refetchInterval: 10_000,
  });
  const pools = useQuery({
    queryKey: ['runtime', 'pools'],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/pools')),
  });
  const poolName = new Map((pools.data?.data ?? []).map((pool) => [pool.id, pool.name]));
  const items = nodes.data?.data ?? [];
  const running = items.reduce((sum, node) => sum + node.capacity.used, 0);
  const slots = items.reduce((sum, node) => sum + node.capacity.slots, 0);

  return (
    <section className="stack">
      <h1>Runtime</h1>
      <RuntimeNav />
      <header className="page-header">
        <h2>Nodes</h2>
        {nodes.data === undefined ? null : (
          <span className="muted">
            {items.length} {items.length === 1 ? 'node' : 'nodes'} · {running} of {slots} session slots in use
          </span>
        )}
      </header>
      <form className="filters" aria-label="Filter nodes" onSubmit={(event) => event.preventDefault()}>
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
          label="Status"
          value={filters.status}
          choices={[
            { id: '', label: 'Any' },
            { id: 'ready', label: 'Ready' },
            { id: 'draining', label: 'Draining' },
            { id: 'offline', label: 'Offline' },
          ]}
          onChange={(status) => setFilters({ status })}
        />
      </form>
      {nodes.error === null ? null : <ProblemNote error={nodes.error} />}
      <DataTable<RuntimeNode>
        label="Nodes"
        items={items}
        emptyText={
          nodes.isPending
            ? 'Loading…'
            : filters.pool_id === '' && filters.status === ''
              ? 'The runtime has no nodes.'
              : 'No node matches these filters.'
        }
        rowHref={(node) => `/runtime/nodes/${encodeURIComponent(node.id)}`}
        columns={[
          { id: 'id', name: 'Node', isRowHeader: true, render: (node) => node.id },
          { id: 'status', name: 'Status', render: (node) => <StatusBadge status={node.status} /> },
          {
            id: 'pool',
            name: 'Pool',
            render: (node) =>
              node.pool_id === null ? (
                <span className="muted">no pool</span>
              ) : (
                (poolName.get(node.pool_id) ?? node.pool_id)
              ),
          },
          { id: 'sessions', name: 'Sessions', render: (node) => <Capacity node={node} /> },
          { id: 'region', name: 'Region', render: (node) => node.region ?? <span className="muted">—</span> },
          {
            id: 'images',
            name: 'Images',
            render: (node) => {
              const pulling = node.images.filter((image) => image.status === 'pulling').length;
              return `${node.images.length}${pulling > 0 ? ` (${pulling} pulling)` : ''}`;
            },
          },
        ]}
      />
    </section>
  );
}
