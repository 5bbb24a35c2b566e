import type { RuntimeClient, RuntimeNode, RuntimePool, UpdateRuntimePoolInput } from '../../adapters/runtime/index.js';
import type { Actor } from '../../kernel/actor.js';
import type { AuditPicture, AuditRowEntry } from '../../kernel/audit.js';
import type { Writes } from '../../kernel/write.js';
import { callRuntime } from './runtime-errors.js';
import type { CreatePoolInput, ListNodesQuery, UpdatePoolInput } from './schemas.js';
import { nodePicture, poolPicture } from './audit-picture.js';

/**
 * Staff administration of the runtime's nodes and pools.
 *
 * The Runtime service is the store of record for nodes and pools: nothing of them lives in our
 * database. A write is therefore the runtime call first; only once the runtime has accepted it
 * does the audit row go in, in a transaction of its own. Any runtime failure (refusal,
 * unreachable, 5xx) leaves no audit row. Runtime failures become route errors through
 * `callRuntime` (503 `unavailable` with Retry-After, 404, 409, 422 with the runtime's message).
 */
export class RuntimeAdminService {
  constructor(
    private readonly write: Writes,
    private readonly runtime: RuntimeClient,
  ) {}

  async listNodes(query: ListNodesQuery): Promise<{ data: RuntimeNode[] }> {
    const filter = {
      ...(query.pool_id !== undefined && { pool_id: query.pool_id }),
      ...(query.status !== undefined && { status: query.status }),
    };
    return { data: await callRuntime(() => this.runtime.listNodes(filter)) };
  }

  getNode(nodeId: string): Promise<RuntimeNode> {
    return callRuntime(() => this.runtime.getNode(nodeId));
  }

  /** Operation 15: the pull runs on in the runtime; the node's `images` show its progress. */
  async pullImage(actor: Actor, nodeId: string, image: string): Promise<{ ok: boolean }> {
    const result = await callRuntime(() => this.runtime.pullImage(nodeId, image));
    if (result.ok) {
      await this.audit(actor, nodePicture, {
        action: 'runtime.node_pull_image',
        targetType: 'runtime_node',
        targetId: nodeId,
        extra: { image },
      });
    }
    return { ok: result.ok };
  }

  /**
   * Drains (no new sessions; running ones go on) or undrains a node. The node is read first so
   * the audit row shows the status it had; a change made by someone else between that read and
   * the runtime call shows up as a `before` slightly out of date, never as a lost write.
   */
  async setDraining(actor: Actor, nodeId: string, draining: boolean, reason: string | undefined): Promise<RuntimeNode> {
    const before = await callRuntime(() => this.runtime.getNode(nodeId));
    const node = await callRuntime(() => this.runtime.setNodeDraining(nodeId, draining));
    await this.audit(actor, nodePicture, {
      action: draining ? 'runtime.node_drain' : 'runtime.node_undrain',
      targetType: 'runtime_node',
      targetId: nodeId,
      reason: reason ?? null,
      before,
      after: node,
      only: ['status'],
    });
    return node;
  }

  /**
   * Moves a node into a pool, or out of every pool with null. A pool the runtime does not know
   * is 422 `invalid_request` (`details.runtime_code` `pool_not_found`): the node exists, the
   * body names something that does not. The node is read first for the audit's `from` pool.
   */
  async assignPool(
    actor: Actor,
    nodeId: string,
    poolId: string | null,
    reason: string | undefined,
  ): Promise<RuntimeNode> {
    const before = await callRuntime(() => this.runtime.getNode(nodeId));
    const node = await callRuntime(() => this.runtime.assignNodePool(nodeId, poolId));
    await this.audit(actor, nodePicture, {
      action: 'runtime.node_assign_pool',
      targetType: 'runtime_node',
      targetId: nodeId,
      reason: reason ?? null,
      before,
      after: node,
      only: ['pool_id'],
    });
    return node;
  }

  async listPools(): Promise<{ data: RuntimePool[] }> {
    return { data: await callRuntime(() => this.runtime.listPools()) };
  }

  getPool(poolId: string): Promise<RuntimePool> {
    return callRuntime(() => this.runtime.getPool(poolId));
  }

  async createPool(actor: Actor, input: CreatePoolInput): Promise<RuntimePool> {
    const pool = await callRuntime(() =>
      this.runtime.createPool({ id: input.id, name: input.name, description: input.description ?? null }),
    );
    await this.audit(actor, poolPicture, {
      action: 'runtime.pool_create',
      targetType: 'runtime_pool',
      targetId: pool.id,
      after: pool,
    });
    return pool;
  }

  /**
   * Renames or describes a pool. Only the fields whose value changes are sent and audited; a
   * body that changes nothing answers the pool as it is, calling and auditing nothing.
   */
  async updatePool(actor: Actor, poolId: string, input: UpdatePoolInput): Promise<RuntimePool> {
    const current = await callRuntime(() => this.runtime.getPool(poolId));
    const { before, after, changed } = poolPicture.changes(current, input);
    if (changed.length === 0) return current;
    const pool = await callRuntime(() => this.runtime.updatePool(poolId, after as UpdateRuntimePoolInput));
    await this.write(actor, (w) =>
      w.audit({
        action: 'runtime.pool_update',
        targetType: 'runtime_pool',
        targetId: poolId,
        before,
        after,
      }),
    );
    return pool;
  }

  /** Runs only after the runtime accepted the change (it is the store of record; see above). */
  private async audit(actor: Actor, picture: AuditPicture, entry: AuditRowEntry): Promise<void> {
    await this.write(actor, (w) => w.auditRow(picture, entry));
  }
}
