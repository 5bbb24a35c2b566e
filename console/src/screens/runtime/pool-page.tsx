import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { DataTable } from '../../ui/data-table';
import { TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { RuntimeNav } from './runtime-nav';
import { Capacity, idFromAddress, NEEDS_WRITE, type RuntimeNode, type RuntimePool, StatusBadge } from './runtime-parts';

const UPDATE = 'PATCH /v1/admin/runtime/pools/{id}';

/** One pool: its name and description (editable) and its nodes. */
export default function PoolPage({ id: raw }: { id: string }) {
  const id = idFromAddress(raw);
  const permissions = usePermissions();
  const canWrite = permissions.can('runtime.write');
  const pool = useQuery({
    queryKey: ['runtime', 'pool', id],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/pools/{id}', { params: { path: { id } } })),
  });
  const nodes = useQuery({
    queryKey: ['runtime', 'nodes', { pool_id: id }],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/nodes', { params: { query: { pool_id: id } } })),
  });

  if (pool.error !== null) {
    return (
      <section className="stack">
        <Link href="/runtime/pools">← Pools</Link>
        <ProblemNote error={pool.error} />
      </section>
    );
  }
  if (pool.data === undefined) return <p className="loading">Loading…</p>;
  const current = pool.data;
  return (
    <section className="stack">
      <Link href="/runtime/pools">← Pools</Link>
      <RuntimeNav />
      <header className="page-header">
        <h1 className="runtime-title">Pool {current.name}</h1>
        <EditPool pool={current} canWrite={canWrite} />
      </header>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{current.id}</code>
        </dd>
        <dt>Description</dt>
        <dd>{current.description ?? <span className="muted">none</span>}</dd>
        <dt>Created</dt>
        <dd>
          <Time value={current.created_at} />
        </dd>
        <dt>Last change</dt>
        <dd>
          <Time value={current.updated_at} />
        </dd>
      </dl>
      <h2>Nodes in this pool</h2>
      {nodes.error === null ? null : <ProblemNote error={nodes.error} />}
      <DataTable<RuntimeNode>
        label="Nodes in this pool"
        items={nodes.data?.data ?? []}
        emptyText={nodes.isPending ? 'Loading…' : 'No node is in this pool: move one here from its page.'}
        rowHref={(node) => `/runtime/nodes/${encodeURIComponent(node.id)}`}
        columns={[
          { id: 'id', name: 'Node', isRowHeader: true, render: (node) => node.id },
          { id: 'status', name: 'Status', render: (node) => <StatusBadge status={node.status} /> },
          { id: 'sessions', name: 'Sessions', render: (node) => <Capacity node={node} /> },
          { id: 'region', name: 'Region', render: (node) => node.region ?? '—' },
        ]}
      />
    </section>
  );
}

function EditPool({ pool, canWrite }: { pool: RuntimePool; canWrite: boolean }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const rule = (field: string) => ruleOf(UPDATE, field);
  const changedName = name.trim() !== pool.name;
  const newDescription = description.trim() === '' ? null : description.trim();
  const changedDescription = newDescription !== pool.description;
  return (
    <FormDialog<RuntimePool>
      title={`Edit pool ${pool.name}`}
      submitLabel="Save pool"
      canSubmit={changedName || changedDescription}
      trigger={{
        label: 'Edit…',
        className: 'btn',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setName(pool.name);
        setDescription(pool.description ?? '');
      }}
      write={{
        call: () =>
          unwrap(
            api.PATCH('/v1/admin/runtime/pools/{id}', {
              params: { path: { id: pool.id } },
              body: {
                ...(changedName ? { name: name.trim() } : {}),
                ...(changedDescription ? { description: newDescription } : {}),
              },
            }),
          ),
        success: (saved) => `Pool ${saved.name} saved`,
        failure: 'Could not save the pool',
        invalidates: [['runtime']],
      }}
    >
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        minLength={rule('name').minLength}
        maxLength={rule('name').maxLength}
        autoFocus
      />
      <TextInput
        label="Description"
        name="description"
        value={description}
        onChange={setDescription}
        maxLength={rule('description').maxLength}
        description="Empty clears it."
        multiline
      />
    </FormDialog>
  );
}
