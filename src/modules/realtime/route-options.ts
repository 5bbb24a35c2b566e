// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import { realtimeCredentials, realtimeQuery, upgradeRequired } from './schemas.js';

const tags = ['realtime'];

export const getMyRealtimeCredentials = {
  schema: {
    operationId: 'getMyRealtimeCredentials',
    tags,
    summary: 'Realtime credentials',
    description:
      'A ticket for the realtime socket (`GET /v1/realtime`), good for 60 s, naming the caller and the ' +
      'channels their permissions and roles let them join. In depth: ' +
      '[docs/api/realtime.md](docs/api/realtime.md#realtime-credentials).',
    response: { 200: realtimeCredentials },
  },
} as const;

export const openRealtimeSocket = {
  schema: {
    operationId: 'openRealtimeSocket',
    tags,
    summary: 'Realtime socket',
    description:
      "The realtime WebSocket: pass the ticket of `GET /v1/me/realtime` as `?ticket=`. It joins the ticket's " +
      'channels and sends dashboard events, alerts, notifications and maintenance changes. In depth: ' +
      '[docs/api/realtime.md](docs/api/realtime.md#realtime-socket).',
    querystring: realtimeQuery,
    response: {
      101: z.null().describe('Switching Protocols: the connection becomes the WebSocket described above.'),
      426: upgradeRequired.describe('A plain HTTP request: connect with a WebSocket client.'),
    },
  },
} as const;
