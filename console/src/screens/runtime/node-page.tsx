import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { Confirm } from '../../ui/confirm';
import { DataTable } from '../../ui/data-table';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { RuntimeNav } from './runtime-nav';
import {
  Capacity,
  idFromAddress,
  NEEDS_WRITE,
  type RuntimeNode,
  type RuntimePool,
  SessionsTable,
  StatusBadge,
} from './runtime-parts';

type NodeImage = RuntimeNode['images'][number];
const PULL = 'POST /v1/admin/runtime/nodes/{id}/pull-image';
const DRAIN = 'POST /v1/admin/runtime/nodes/{id}/drain';
const MOVE = 'PUT /v1/admin/runtime/nodes/{id}/pool';
/** While an image pulls, the node is read again this often: the runtime reports a pull's progress only by its status. */
const PULL_POLL_MS = 1_000;

const sessionsWord = (count: number) => (count === 1 ? '1 session' : `${count} sessions`);

/** One node: its state, capacity and images; drain or undrain it, move it to a pool, pull an image; its sessions. */
export default function NodePage({ id: raw }: { id: string }) {
  const id = idFromAddress(raw);
  const permissions = usePermissions();
  const canWrite = permissions.can('runtime.write');
  const node = useQuery({
    queryKey: ['runtime', 'node', id],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/nodes/{id}', { params: { path: { id } } })),
    refetchInterval: (query) =>
      query.state.data?.images.some((image) => image.status === 'pulling') ? PULL_POLL_MS : 10_000,
  });
  const pools = useQuery({
    queryKey: ['runtime', 'pools'],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/pools')),
  });

  if (node.error !== null) {
    return (
      <section className="stack">
        <Link href="/runtime">← Nodes</Link>
        <ProblemNote error={node.error} />
      </section>
    );
  }
  if (node.data === undefined) return <p className="loading">Loading…</p>;
  const current = node.data;
  const pool = (pools.data?.data ?? []).find((each) => each.id === current.pool_id);

  return (
    <section className="stack">
      <Link href="/runtime">← Nodes</Link>
      <RuntimeNav />
      <header className="page-header">
        <h1 className="runtime-title">Node {current.id}</h1>
        <StatusBadge status={current.status} />
      </header>
      <dl className="facts">
        <dt>Pool</dt>
        <dd>
          {current.pool_id === null ? (
            <span className="muted">no pool</span>
          ) : (
            <Link href={`/runtime/pools/${encodeURIComponent(current.pool_id)}`}>{pool?.name ?? current.pool_id}</Link>
          )}
        </dd>
        <dt>Sessions</dt>
        <dd>
          <Capacity node={current} />
        </dd>
        <dt>Region</dt>
        <dd>{current.region ?? <span className="muted">—</span>}</dd>
        <dt>Since</dt>
        <dd>
          <Time value={current.created_at} />
        </dd>
        <dt>Last change</dt>
        <dd>
          <Time value={current.updated_at} />
        </dd>
      </dl>
      <div className="button-row">
        <DrainOrUndrain node={current} canWrite={canWrite} />
        <MoveToPool node={current} pools={pools.data?.data ?? []} canWrite={canWrite} />
        <PullImage node={current} canWrite={canWrite} />
      </div>

      <h2>Images</h2>
      <PullProgress images={current.images} />
      <DataTable<NodeImage & { id: string }>
        label="Images on this node"
        items={current.images.map((image) => ({ ...image, id: image.image }))}
        emptyText="No image on this node."
        columns={[
          {
            id: 'image',
            name: 'Image',
            isRowHeader: true,
            render: (image) => <code className="runtime-image">{image.image}</code>,
          },
          {
            id: 'status',
            name: 'Status',
            render: (image) =>
              image.status === 'pulling' ? (
                <span className="runtime-pulling">
                  <StatusBadge status="pulling" />
                  <progress aria-label={`Pulling ${image.image}`} />
                </span>
              ) : (
                <StatusBadge status={image.status === 'ready' ? 'ready' : 'failed'} label={image.status} />
              ),
          },
          { id: 'error', name: 'Why it failed', long: true, render: (image) => image.error ?? '' },
          { id: 'updated', name: 'Since', render: (image) => <Time value={image.updated_at} /> },
        ]}
      />

      <h2>Sessions on this node</h2>
      <SessionsTable
        label="Sessions on this node"
        filters={{ node_id: current.id }}
        emptyText="No session has run on this node."
      />
    </section>
  );
}

/**
 * Says, for screen readers too, how the pulls started here go: "Pulling …", then "… is ready" or
 * "… failed: why". The runtime gives no percentage, only the image's status.
 */
function PullProgress({ images }: { images: NodeImage[] }) {
  const seen = useRef(new Map<string, NodeImage['status']>());
  const [message, setMessage] = useState('');
  useEffect(() => {
    const notes: string[] = [];
    for (const image of images) {
      const before = seen.current.get(image.image);
      if (image.status === 'pulling') notes.push(`Pulling ${image.image}…`);
      else if (before === 'pulling' && image.status === 'ready') notes.push(`${image.image} is ready.`);
      else if (before === 'pulling' && image.status === 'failed')
        notes.push(`${image.image} failed: ${image.error ?? 'no reason given'}.`);
      seen.current.set(image.image, image.status);
    }
    if (notes.length > 0) setMessage(notes.join(' '));
  }, [images]);
  return (
    <p role="status" className={message === '' ? 'visually-hidden' : 'hint'}>
      {message}
    </p>
  );
}

function DrainOrUndrain({ node, canWrite }: { node: RuntimeNode; canWrite: boolean }) {
  const running = node.capacity.used;
  const offline = node.status === 'offline';
  const blocked = !canWrite ? NEEDS_WRITE : offline ? 'The node is offline' : undefined;
  const write = (drain: boolean) => ({
    call: (reason: string) =>
      unwrap(
        drain
          ? api.POST('/v1/admin/runtime/nodes/{id}/drain', {
              params: { path: { id: node.id } },
              body: reason === '' ? {} : { reason },
            })
          : api.POST('/v1/admin/runtime/nodes/{id}/undrain', {
              params: { path: { id: node.id } },
              body: reason === '' ? {} : { reason },
            }),
      ),
    success: (result: RuntimeNode) => `Node ${result.id} is ${result.status}`,
    failure: drain ? 'Could not drain the node' : 'Could not undrain the node',
    invalidates: [['runtime']],
  });
  if (node.status === 'draining') {
    return (
      <Confirm<RuntimeNode>
        trigger="Undrain…"
        isDisabled={blocked !== undefined}
        disabledReason={blocked}
        title={`Undrain ${node.id}?`}
        consequence={`${node.id} takes new game sessions again.${running === 0 ? '' : ` The ${sessionsWord(running)} running on it go on.`}`}
        confirmLabel="Undrain node"
        reason={ruleOf(DRAIN, 'reason')}
        write={write(false)}
      />
    );
  }
  return (
    <Confirm<RuntimeNode>
      trigger="Drain…"
      destructive
      isDisabled={blocked !== undefined}
      disabledReason={blocked}
      title={`Drain ${node.id}?`}
      consequence={
        running === 0 ? (
          <p>No new game session starts on {node.id}; none runs on it now. Undrain to take new sessions again.</p>
        ) : (
          <p>
            No new game session starts on {node.id}. The {sessionsWord(running)} running on it now{' '}
            {running === 1 ? 'goes' : 'go'} on until {running === 1 ? 'its player stops' : 'their players stop'}:
            draining ends none of them (end one from the list below if it must go now). Undrain to take new sessions
            again.
          </p>
        )
      }
      confirmLabel="Drain node"
      reason={ruleOf(DRAIN, 'reason')}
      write={write(true)}
    />
  );
}

function MoveToPool({ node, pools, canWrite }: { node: RuntimeNode; pools: RuntimePool[]; canWrite: boolean }) {
  const [poolId, setPoolId] = useState('');
  const [reason, setReason] = useState('');
  const current = node.pool_id ?? '';
  return (
    <FormDialog<RuntimeNode>
      title={`Move ${node.id} to a pool`}
      submitLabel="Move node"
      canSubmit={poolId !== current}
      trigger={{
        label: 'Move to pool…',
        className: 'btn',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setPoolId(current);
        setReason('');
      }}
      write={{
        call: () =>
          unwrap(
            api.PUT('/v1/admin/runtime/nodes/{id}/pool', {
              params: { path: { id: node.id } },
              body: {
                pool_id: poolId === '' ? null : poolId,
                ...(reason.trim() === '' ? {} : { reason: reason.trim() }),
              },
            }),
          ),
        success: (result) =>
          result.pool_id === null ? `${result.id} is in no pool` : `${result.id} moved to ${result.pool_id}`,
        failure: 'Could not move the node',
        invalidates: [['runtime']],
      }}
    >
      <ChoiceInput
        label="Pool"
        value={poolId}
        choices={[
          { id: '', label: 'No pool' },
          ...pools.map((pool) => ({ id: pool.id, label: `${pool.name} (${pool.node_ids.length} nodes)` })),
        ]}
        onChange={setPoolId}
      />
      <p className="hint">
        Sessions running on it stay where they are; new sessions of the chosen pool's players may start here.
      </p>
      <TextInput
        label="Reason (optional)"
        name="reason"
        value={reason}
        onChange={setReason}
        maxLength={ruleOf(MOVE, 'reason').maxLength}
        description="Kept in the audit log."
        multiline
      />
    </FormDialog>
  );
}

function PullImage({ node, canWrite }: { node: RuntimeNode; canWrite: boolean }) {
  const [image, setImage] = useState('');
  const rule = ruleOf(PULL, 'image');
  const blocked = !canWrite ? NEEDS_WRITE : node.status === 'offline' ? 'The node is offline' : undefined;
  return (
    <FormDialog<{ ok: boolean }>
      title={`Pull an image onto ${node.id}`}
      submitLabel="Start pull"
      trigger={{ label: 'Pull image…', className: 'btn', isDisabled: blocked !== undefined, disabledReason: blocked }}
      onOpen={() => setImage('')}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/runtime/nodes/{id}/pull-image', {
              params: { path: { id: node.id } },
              body: { image: image.trim() },
            }),
          ),
        success: (result) =>
          result.ok ? `Pulling ${image.trim()} onto ${node.id}` : `The runtime did not start pulling ${image.trim()}`,
        failure: 'Could not pull the image',
        invalidates: [['runtime', 'node', node.id]],
      }}
    >
      <TextInput
        label="Image"
        name="image"
        value={image}
        onChange={setImage}
        isRequired
        minLength={rule.minLength}
        maxLength={rule.maxLength}
        description="A reference such as registry.example.com/games/starfall:1.4.2. Its progress shows under Images."
        autoFocus
      />
    </FormDialog>
  );
}
