import type pg from 'pg';

/** One served request's phases (request-phases.mjs). */
export interface RequestPhases {
  /** Method and path, without the query string. */
  what: string;
  ms: number;
  /** Waiting for a pooled database connection (wall time while any wait was under way). */
  poolWaitMs: number;
  /** Waiting on queries, each from its call to its answer (wall time while any was under way). */
  queryMs: number;
  queries: number;
  /** The request's longest query and the start of its text; null without one. */
  slowestQuery?: { ms: number; text: string } | null;
  /** The request's longest wait for a connection and the pool's session name; null without one. */
  longestPoolWait?: { ms: number; pool: string } | null;
}

export function traceRequestPhases(pgModule: typeof pg, onRequest: (phases: RequestPhases) => void): () => void;
