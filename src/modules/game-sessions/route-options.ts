// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import {
  gameSessionBody,
  listSessionsQuery,
  mySessionsPage,
  mySessionsQuery,
  sessionIdParams,
  sessionsPage,
  staffStopBody,
  startSessionBody,
  startedSessionBody,
} from './schemas.js';

const READ = { perms: ['runtime.read'] } as const;
const WRITE = { perms: ['runtime.write'] } as const;
const noContent = { 204: z.null().describe('Done') };
const tags = ['game sessions'];
const cursorRule =
  "`limit` 1..100 (default 25) and `cursor` (the previous page's `meta.next_cursor`); newest first. A cursor this " +
  'list did not return is a 400 SchemaError on `cursor`.';

export const startMyGameSession = {
  config: { errors: { 404: ['game_not_found'], 409: ['conflict'] } },
  schema: {
    operationId: 'startMyGameSession',
    tags,
    summary: 'Start a game session',
    description:
      "Starts the game on the runtime in the pool of the caller's plan and answers the session id, play URL " +
      'and member token (not kept). One live session per player (409 `conflict` with `details.session_id`). In ' +
      'depth: [docs/api/game-sessions.md](docs/api/game-sessions.md#start-a-game-session).',
    body: startSessionBody,
    response: { 201: startedSessionBody },
  },
} as const;

export const stopMyGameSession = {
  config: { errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'stopMyGameSession',
    tags,
    summary: "Stop the caller's game session",
    description:
      'No body. Allowed at every maintenance level. 404 `not_found` when the caller has no live session; 503 ' +
      '`unavailable` with `Retry-After` when the runtime cannot be reached (the session stays live).',
    response: noContent,
  },
} as const;

export const listMyGameSessions = {
  schema: {
    operationId: 'listMyGameSessions',
    tags,
    summary: "The caller's game session history",
    description: cursorRule,
    querystring: mySessionsQuery,
    response: { 200: mySessionsPage },
  },
} as const;

export const listRuntimeSessions = {
  config: READ,
  schema: {
    operationId: 'listRuntimeSessions',
    tags,
    summary: 'List game sessions',
    description: `Filters \`user_id\`, \`pool_id\`, \`node_id\`, \`status\`, \`game_id\`, combined with AND. ${cursorRule}`,
    querystring: listSessionsQuery,
    response: { 200: sessionsPage },
  },
} as const;

export const getRuntimeSession = {
  config: { ...READ, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getRuntimeSession',
    tags,
    summary: 'Get a game session',
    description: '404 `not_found`.',
    params: sessionIdParams,
    response: { 200: gameSessionBody },
  },
} as const;

export const stopRuntimeSession = {
  config: { ...WRITE, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
  schema: {
    operationId: 'stopRuntimeSession',
    tags,
    summary: 'Stop a game session',
    description:
      'Stops it on the runtime, then records it `ended` (`staff_stopped`) and audits `runtime.session_stop` ' +
      'with the optional `reason`. Returns the updated session. 404 `not_found`; 422 `invalid_state` when it ' +
      'has already ended; 503 `unavailable` with `Retry-After` when the runtime cannot be reached (nothing ' +
      'changes).',
    params: sessionIdParams,
    body: staffStopBody,
    response: { 200: gameSessionBody },
  },
} as const;
