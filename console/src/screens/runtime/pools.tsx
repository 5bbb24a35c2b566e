import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { DataTable } from '../../ui/data-table';
import { TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { RuntimeNav } from './runtime-nav';
import { NEEDS_WRITE, type RuntimePool } from './runtime-parts';

const CREATE = 'POST /v1/admin/runtime/pools';

/** The runtime's pools: which nodes each holds; create one. */
export default function PoolsPage() {
  const permissions = usePermissions();
  const canWrite = permissions.can('runtime.write');
  const pools = useQuery({
    queryKey: ['runtime', 'pools'],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/pools')),
  });
  return (
    <section className="stack">
      <h1>Runtime</h1>
      <RuntimeNav />
      <header className="page-header">
        <h2>Pools</h2>
        <CreatePool canWrite={canWrite} />
      </header>
      {pools.error === null ? null : <ProblemNote error={pools.error} />}
      <DataTable<RuntimePool>
        label="Pools"
        items={pools.data?.data ?? []}
        emptyText={pools.isPending ? 'Loading…' : 'The runtime has no pools yet.'}
        rowHref={(pool) => `/runtime/pools/${encodeURIComponent(pool.id)}`}
        columns={[
          { id: 'name', name: 'Pool', isRowHeader: true, render: (pool) => pool.name },
          { id: 'id', name: 'Id', render: (pool) => <code>{pool.id}</code> },
          { id: 'nodes', name: 'Nodes', render: (pool) => pool.node_ids.length },
          { id: 'description', name: 'Description', long: true, render: (pool) => pool.description ?? '' },
          { id: 'updated', name: 'Last change', render: (pool) => <Time value={pool.updated_at} /> },
        ]}
      />
    </section>
  );
}

function CreatePool({ canWrite }: { canWrite: boolean }) {
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [, navigate] = useLocation();
  const rule = (field: string) => ruleOf(CREATE, field);
  return (
    <FormDialog<RuntimePool>
      title="New pool"
      submitLabel="Create pool"
      trigger={{
        label: 'New pool…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setId('');
        setName('');
        setDescription('');
      }}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/runtime/pools', {
              body: {
                id: id.trim(),
                name: name.trim(),
                ...(description.trim() === '' ? {} : { description: description.trim() }),
              },
            }),
          ),
        success: (pool) => `Pool ${pool.name} created`,
        failure: 'Could not create the pool',
        invalidates: [['runtime', 'pools']],
        onDone: (pool) => navigate(`/runtime/pools/${encodeURIComponent(pool.id)}`),
      }}
    >
      <TextInput
        label="Id"
        name="id"
        value={id}
        onChange={(value) => setId(value.toLowerCase())}
        isRequired
        pattern={{
          source: rule('id').pattern ?? '[a-z0-9][a-z0-9-]{0,62}',
          hint: 'Up to 63 lowercase letters, digits or -, starting with a letter or digit',
        }}
        description="Plans name it in their limits (pool_id); it cannot change later."
        autoFocus
      />
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        minLength={rule('name').minLength}
        maxLength={rule('name').maxLength}
      />
      <TextInput
        label="Description (optional)"
        name="description"
        value={description}
        onChange={setDescription}
        maxLength={rule('description').maxLength}
        multiline
      />
    </FormDialog>
  );
}
