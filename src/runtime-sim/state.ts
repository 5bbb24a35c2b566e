import { randomBytes } from 'node:crypto';
import type {
  CreatedRuntimeSession,
  CreateRuntimePoolInput,
  CreateRuntimeSessionInput,
  ListRuntimeNodesFilter,
  RuntimeNode,
  RuntimeNodeImage,
  RuntimeNodeStatus,
  RuntimePool,
  RuntimeSession,
  UpdateRuntimePoolInput,
} from '../adapters/runtime/index.js';
import { imageReferenceProblem } from './image-reference.js';

/** A request the simulated runtime refuses: answered as `status { error: { code, message } }`. */
export class SimulatorRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SimulatorRefusal';
  }
}

export interface NewSimulatedNode {
  id: string;
  /** Default null: in no pool (such a node takes no sessions). */
  pool_id?: string | null;
  /** Default 4. */
  slots?: number;
  /** Default `local`. */
  region?: string | null;
  /** Default `ready`. */
  status?: RuntimeNodeStatus;
  /** Images already on the node (ready). Default none. */
  images?: string[];
}

/** A session as the simulator holds it: the API shape plus what only the simulator sees. */
export interface SimulatedSession extends RuntimeSession {
  game: { id: number; slug: string };
  limits: Record<string, unknown>;
  member_token: string;
  /** The pool the caller asked for (null: any); `pool_id` is the pool it landed in. */
  requested_pool_id: string | null;
}

export interface SimulatorStateOptions {
  now: () => Date;
  pullDelayMs: number;
  /** The play URL of a session (it depends on where the simulator listens). */
  playUrl: (sessionId: string) => string;
}

interface NodeRecord {
  id: string;
  pool_id: string | null;
  status: RuntimeNodeStatus;
  region: string | null;
  slots: number;
  images: Map<string, RuntimeNodeImage>;
  /** Ids of the sessions holding a slot (starting or running). */
  active: Set<string>;
  created_at: string;
  updated_at: string;
}

interface PoolRecord {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

interface PendingPull {
  nodeId: string;
  image: string;
  timer: NodeJS.Timeout;
}

/** The images the simulator "cannot find": their pull fails after the delay. */
export const MISSING_IMAGE_MARKER = 'does-not-exist';

/** The simulated fleet: nodes, pools, image pulls and sessions, all in memory. */
export class SimulatorState {
  private readonly nodes = new Map<string, NodeRecord>();
  private readonly pools = new Map<string, PoolRecord>();
  private readonly sessions = new Map<string, SimulatedSession>();
  private readonly pulls = new Map<string, PendingPull>();

  constructor(private readonly options: SimulatorStateOptions) {}

  private timestamp(): string {
    return this.options.now().toISOString();
  }

  // --- nodes --------------------------------------------------------------------------------

  addNode(input: NewSimulatedNode): RuntimeNode {
    if (this.nodes.has(input.id)) throw new Error(`node ${input.id} already exists`);
    const poolId = input.pool_id ?? null;
    if (poolId !== null && !this.pools.has(poolId)) throw new Error(`pool ${poolId} does not exist`);
    const at = this.timestamp();
    const images = new Map<string, RuntimeNodeImage>();
    for (const image of input.images ?? []) images.set(image, { image, status: 'ready', error: null, updated_at: at });
    const node: NodeRecord = {
      id: input.id,
      pool_id: poolId,
      status: input.status ?? 'ready',
      region: input.region === undefined ? 'local' : input.region,
      slots: input.slots ?? 4,
      images,
      active: new Set(),
      created_at: at,
      updated_at: at,
    };
    this.nodes.set(node.id, node);
    return this.nodeView(node);
  }

  listNodes(filter: ListRuntimeNodesFilter = {}): RuntimeNode[] {
    return [...this.nodes.values()]
      .filter(
        (node) =>
          (filter.pool_id === undefined || node.pool_id === filter.pool_id) &&
          (filter.status === undefined || node.status === filter.status),
      )
      .sort((a, b) => compare(a.id, b.id))
      .map((node) => this.nodeView(node));
  }

  getNode(nodeId: string): RuntimeNode {
    return this.nodeView(this.requireNode(nodeId));
  }

  findNode(nodeId: string): RuntimeNode | undefined {
    const node = this.nodes.get(nodeId);
    return node && this.nodeView(node);
  }

  setNodeDraining(nodeId: string, draining: boolean): RuntimeNode {
    const node = this.requireNode(nodeId);
    if (node.status === 'offline') throw new SimulatorRefusal(409, 'node_offline', `node ${nodeId} is offline`);
    this.changeStatus(node, draining ? 'draining' : 'ready');
    return this.nodeView(node);
  }

  /** Any status, as the fleet itself would change it. A node going offline fails its sessions. */
  setNodeStatus(nodeId: string, status: RuntimeNodeStatus): RuntimeNode {
    const node = this.requireNode(nodeId);
    this.changeStatus(node, status);
    if (status === 'offline') {
      for (const sessionId of node.active) this.endSession(this.sessions.get(sessionId)!, 'failed');
    }
    return this.nodeView(node);
  }

  assignNodePool(nodeId: string, poolId: string | null): RuntimeNode {
    const node = this.requireNode(nodeId);
    if (poolId !== null && !this.pools.has(poolId))
      throw new SimulatorRefusal(422, 'pool_not_found', `pool ${poolId} does not exist`);
    if (node.pool_id !== poolId) {
      node.pool_id = poolId;
      node.updated_at = this.timestamp();
    }
    return this.nodeView(node);
  }

  // --- image pulls ----------------------------------------------------------------------------

  pullImage(nodeId: string, image: string): RuntimeNodeImage {
    const node = this.requireNode(nodeId);
    const problem = imageReferenceProblem(image);
    if (problem !== null) throw new SimulatorRefusal(422, 'invalid_image', problem);
    if (node.status === 'offline') throw new SimulatorRefusal(409, 'node_offline', `node ${nodeId} is offline`);
    if (node.images.get(image)?.status === 'pulling') {
      throw new SimulatorRefusal(409, 'pull_in_progress', `${image} is already being pulled onto node ${nodeId}`);
    }
    const at = this.timestamp();
    const entry: RuntimeNodeImage = { image, status: 'pulling', error: null, updated_at: at };
    node.images.set(image, entry);
    node.updated_at = at;
    const key = pullKey(nodeId, image);
    const timer = setTimeout(() => this.finishPull(key), this.options.pullDelayMs);
    timer.unref();
    this.pulls.set(key, { nodeId, image, timer });
    return { ...entry };
  }

  /** Finishes every pending pull now, as if its delay had passed. */
  settlePulls(): void {
    for (const [key, pull] of [...this.pulls]) {
      clearTimeout(pull.timer);
      this.finishPull(key);
    }
  }

  private finishPull(key: string): void {
    const pull = this.pulls.get(key);
    if (pull === undefined) return;
    this.pulls.delete(key);
    const node = this.nodes.get(pull.nodeId);
    if (node === undefined) return;
    const at = this.timestamp();
    let outcome: Pick<RuntimeNodeImage, 'status' | 'error'> = { status: 'ready', error: null };
    if (node.status === 'offline') outcome = { status: 'failed', error: 'the node went offline during the pull' };
    else if (pull.image.includes(MISSING_IMAGE_MARKER))
      outcome = { status: 'failed', error: `manifest for ${pull.image} not found: manifest unknown` };
    node.images.set(pull.image, { image: pull.image, ...outcome, updated_at: at });
    node.updated_at = at;
  }

  // --- pools ----------------------------------------------------------------------------------

  listPools(): RuntimePool[] {
    return [...this.pools.values()].sort((a, b) => compare(a.id, b.id)).map((pool) => this.poolView(pool));
  }

  getPool(poolId: string): RuntimePool {
    return this.poolView(this.requirePool(poolId));
  }

  findPool(poolId: string): RuntimePool | undefined {
    const pool = this.pools.get(poolId);
    return pool && this.poolView(pool);
  }

  createPool(input: CreateRuntimePoolInput): RuntimePool {
    if (this.pools.has(input.id)) throw new SimulatorRefusal(409, 'pool_exists', `pool ${input.id} already exists`);
    const at = this.timestamp();
    const pool: PoolRecord = {
      id: input.id,
      name: input.name,
      description: input.description ?? null,
      created_at: at,
      updated_at: at,
    };
    this.pools.set(pool.id, pool);
    return this.poolView(pool);
  }

  updatePool(poolId: string, input: UpdateRuntimePoolInput): RuntimePool {
    const pool = this.requirePool(poolId);
    const name = input.name ?? pool.name;
    const description = input.description === undefined ? pool.description : input.description;
    if (name !== pool.name || description !== pool.description) {
      Object.assign(pool, { name, description, updated_at: this.timestamp() });
    }
    return this.poolView(pool);
  }

  // --- sessions -------------------------------------------------------------------------------

  /**
   * Places a session, or answers the one already made with this id (`created: false`): the
   * caller retries creation safely. The same id with another user, game or pool is a conflict.
   */
  createSession(input: CreateRuntimeSessionInput): { session: CreatedRuntimeSession; created: boolean } {
    const existing = this.sessions.get(input.id);
    if (existing !== undefined) {
      if (
        existing.user_id !== input.user_id ||
        existing.game.id !== input.game.id ||
        existing.requested_pool_id !== input.pool_id
      ) {
        throw new SimulatorRefusal(
          409,
          'session_exists',
          `session ${input.id} already exists for another user, game or pool`,
        );
      }
      return { session: this.createdView(existing), created: false };
    }
    if (input.pool_id !== null && !this.pools.has(input.pool_id)) {
      throw new SimulatorRefusal(404, 'pool_not_found', `pool ${input.pool_id} does not exist`);
    }
    const node = this.placeSession(input.pool_id);
    const session: SimulatedSession = {
      id: input.id,
      user_id: input.user_id,
      game_id: input.game.id,
      pool_id: node.pool_id,
      node_id: node.id,
      status: 'running',
      play_url: this.options.playUrl(input.id),
      created_at: this.timestamp(),
      ended_at: null,
      game: { id: input.game.id, slug: input.game.slug },
      limits: structuredClone(input.limits),
      member_token: randomBytes(32).toString('base64url'),
      requested_pool_id: input.pool_id,
    };
    this.sessions.set(session.id, session);
    node.active.add(session.id);
    return { session: this.createdView(session), created: true };
  }

  /** The least-loaded ready node with a free slot (in the pool, or in any pool for null). */
  private placeSession(poolId: string | null): NodeRecord {
    const candidates = [...this.nodes.values()].filter(
      (node) =>
        node.status === 'ready' &&
        node.active.size < node.slots &&
        (poolId === null ? node.pool_id !== null : node.pool_id === poolId),
    );
    candidates.sort((a, b) => a.active.size / a.slots - b.active.size / b.slots || compare(a.id, b.id));
    const chosen = candidates[0];
    if (chosen === undefined) {
      throw new SimulatorRefusal(
        409,
        'no_capacity',
        poolId === null ? 'no ready node has a free slot' : `no ready node in pool ${poolId} has a free slot`,
      );
    }
    return chosen;
  }

  getSession(sessionId: string): RuntimeSession {
    return sessionView(this.requireSession(sessionId));
  }

  findSession(sessionId: string): SimulatedSession | undefined {
    const session = this.sessions.get(sessionId);
    return session && structuredClone(session);
  }

  allSessions(): SimulatedSession[] {
    return [...this.sessions.values()].map((session) => structuredClone(session));
  }

  stopSession(sessionId: string): RuntimeSession {
    const session = this.requireSession(sessionId);
    if (session.status === 'starting' || session.status === 'running') this.endSession(session, 'stopped');
    return sessionView(session);
  }

  /** Cancels pending pulls (they stay `pulling`): nothing runs after the simulator closes. */
  close(): void {
    for (const pull of this.pulls.values()) clearTimeout(pull.timer);
    this.pulls.clear();
  }

  // --- helpers --------------------------------------------------------------------------------

  private endSession(session: SimulatedSession, status: 'stopped' | 'failed'): void {
    session.status = status;
    session.ended_at = this.timestamp();
    session.play_url = null;
    if (session.node_id !== null) this.nodes.get(session.node_id)?.active.delete(session.id);
  }

  private changeStatus(node: NodeRecord, status: RuntimeNodeStatus): void {
    if (node.status === status) return;
    node.status = status;
    node.updated_at = this.timestamp();
  }

  private requireNode(nodeId: string): NodeRecord {
    const node = this.nodes.get(nodeId);
    if (node === undefined) throw new SimulatorRefusal(404, 'node_not_found', `node ${nodeId} does not exist`);
    return node;
  }

  private requirePool(poolId: string): PoolRecord {
    const pool = this.pools.get(poolId);
    if (pool === undefined) throw new SimulatorRefusal(404, 'pool_not_found', `pool ${poolId} does not exist`);
    return pool;
  }

  private requireSession(sessionId: string): SimulatedSession {
    const session = this.sessions.get(sessionId);
    if (session === undefined)
      throw new SimulatorRefusal(404, 'session_not_found', `session ${sessionId} does not exist`);
    return session;
  }

  private nodeView(node: NodeRecord): RuntimeNode {
    return {
      id: node.id,
      pool_id: node.pool_id,
      status: node.status,
      region: node.region,
      capacity: { slots: node.slots, used: node.active.size },
      images: [...node.images.values()].sort((a, b) => compare(a.image, b.image)).map((image) => ({ ...image })),
      created_at: node.created_at,
      updated_at: node.updated_at,
    };
  }

  /** The creation answer; a repeat gets the token and URL the first call got, even once ended. */
  private createdView(session: SimulatedSession): CreatedRuntimeSession {
    return {
      id: session.id,
      node_id: session.node_id!,
      pool_id: session.pool_id,
      play_url: this.options.playUrl(session.id),
      member_token: session.member_token,
    };
  }

  private poolView(pool: PoolRecord): RuntimePool {
    const nodeIds = [...this.nodes.values()].filter((node) => node.pool_id === pool.id).map((node) => node.id);
    return { ...pool, node_ids: nodeIds.sort(compare) };
  }
}

function sessionView(session: SimulatedSession): RuntimeSession {
  const { id, user_id, game_id, pool_id, node_id, status, play_url, created_at, ended_at } = session;
  return { id, user_id, game_id, pool_id, node_id, status, play_url, created_at, ended_at };
}

function pullKey(nodeId: string, image: string): string {
  return `${nodeId}\u0000${image}`;
}

/** Code-point order, so listings sort the same everywhere (not by locale). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
