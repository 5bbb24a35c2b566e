/**
 * What the service asks of the Runtime service (the fleet of machines that run games).
 * The runtime owns nodes, pools, images and live sessions; the service reaches it over HTTP
 * with a server-side API key (docs/runtime-api.md is the contract). The embedded default runs
 * the runtime simulator in-process and talks to it over loopback HTTP through the same client.
 */

export type RuntimeNodeStatus = 'ready' | 'draining' | 'offline';
export type RuntimeImageStatus = 'pulling' | 'ready' | 'failed';
export type RuntimeSessionStatus = 'starting' | 'running' | 'stopped' | 'failed';

export interface RuntimeNodeImage {
  image: string;
  status: RuntimeImageStatus;
  /** Why the last pull failed; null otherwise. */
  error: string | null;
  updated_at: string;
}

export interface RuntimeNode {
  id: string;
  pool_id: string | null;
  status: RuntimeNodeStatus;
  region: string | null;
  /** Session slots: how many the node runs at once, how many are taken. */
  capacity: { slots: number; used: number };
  images: RuntimeNodeImage[];
  created_at: string;
  updated_at: string;
}

export interface RuntimePool {
  id: string;
  name: string;
  description: string | null;
  node_ids: string[];
  created_at: string;
  updated_at: string;
}

export interface RuntimeSession {
  id: string;
  user_id: string;
  game_id: number;
  pool_id: string | null;
  node_id: string | null;
  status: RuntimeSessionStatus;
  play_url: string | null;
  created_at: string;
  ended_at: string | null;
}

/** A new session: the only answer that carries the member token (never stored by the service). */
export interface CreatedRuntimeSession {
  id: string;
  node_id: string;
  pool_id: string | null;
  play_url: string;
  member_token: string;
}

export interface CreateRuntimeSessionInput {
  /** Chosen by the service: creating twice with one id returns the same session (safe retries). */
  id: string;
  user_id: string;
  game: { id: number; slug: string };
  /** Pool to place the session in; null lets the runtime choose. */
  pool_id: string | null;
  /** The caller's ruleset limits (`max_fps`, ...), passed through as the runtime reads them. */
  limits: Record<string, unknown>;
}

export interface CreateRuntimePoolInput {
  id: string;
  name: string;
  description?: string | null;
}

export interface UpdateRuntimePoolInput {
  name?: string;
  description?: string | null;
}

export interface ListRuntimeNodesFilter {
  pool_id?: string;
  status?: RuntimeNodeStatus;
}

export interface RuntimeClient {
  listNodes(filter?: ListRuntimeNodesFilter): Promise<RuntimeNode[]>;
  getNode(nodeId: string): Promise<RuntimeNode>;
  /** Starts pulling `image` onto the node; `ok` is the runtime's acceptance. */
  pullImage(nodeId: string, image: string): Promise<{ ok: boolean }>;
  /** A draining node takes no new sessions; running ones go on. */
  setNodeDraining(nodeId: string, draining: boolean): Promise<RuntimeNode>;
  /** Moves the node into a pool, or out of every pool with null. */
  assignNodePool(nodeId: string, poolId: string | null): Promise<RuntimeNode>;
  listPools(): Promise<RuntimePool[]>;
  getPool(poolId: string): Promise<RuntimePool>;
  createPool(input: CreateRuntimePoolInput): Promise<RuntimePool>;
  updatePool(poolId: string, input: UpdateRuntimePoolInput): Promise<RuntimePool>;
  createSession(input: CreateRuntimeSessionInput): Promise<CreatedRuntimeSession>;
  getSession(sessionId: string): Promise<RuntimeSession>;
  /** Stops the session; stopping one already ended is not an error. */
  stopSession(sessionId: string): Promise<RuntimeSession>;
  /** `GET /v1/health`, once, without retries: resolves when the runtime answers `{ ok: true }`. */
  health(): Promise<void>;
}

/**
 * The runtime could not be reached, timed out, or answered 5xx: the caller should retry later
 * (routes answer 503 `unavailable`). The message is safe to log; it never holds the API key.
 */
export class RuntimeUnavailableError extends Error {
  constructor(
    readonly operation: string,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'RuntimeUnavailableError';
  }
}

/**
 * The runtime refused the request (4xx other than auth): `status` and its `code` and `message`
 * as the runtime sent them. Each operation decides what that means for its own caller.
 */
export class RuntimeRefusedError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RuntimeRefusedError';
  }
}

export interface RuntimeConfig {
  /** The Runtime service base URL; absent: the simulator runs in-process. */
  runtimeUrl: string | undefined;
  runtimeApiKey: string | undefined;
  runtimeConnectTimeoutMs: number;
  runtimeTimeoutMs: number;
}
