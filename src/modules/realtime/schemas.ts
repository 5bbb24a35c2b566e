import { z } from 'zod';
import type { NotificationView } from '../notifications/index.js';

export const realtimeCredentials = z
  .object({
    ticket: z
      .string()
      .describe(
        'Opaque, signed; admits connections to `url` until `expires_at` (60 s). It names the caller and `channels` only.',
      ),
    expires_at: z.iso
      .datetime()
      .describe('When the ticket stops admitting new connections; an open connection stays open.'),
    url: z.string().describe('The WebSocket endpoint: connect to `<url>?ticket=<ticket>`.'),
    channels: z
      .array(z.string())
      .describe(
        'What the ticket may join: `user:<id>` always; `dashboard` with `audit.read`; `area:support` with ' +
          '`support.read`; `area:email` with `email.read`; `alerts:<role key>` for each role of the caller that ' +
          'hears alerts.',
      ),
  })
  .describe('A one-time ticket, and the URL and channels to connect to.');
export type RealtimeCredentials = z.infer<typeof realtimeCredentials>;

// Nothing fails here: a bad ticket (even a repeated parameter) must reach the socket and be closed with 1008, not
// answered 400.
export const realtimeQuery = z.object({
  ticket: z
    .preprocess((value) => (typeof value === 'string' ? value : undefined), z.string().optional())
    .describe('The ticket from `GET /v1/me/realtime`.'),
});

export const upgradeRequired = z.object({ error: z.literal('upgrade_required') });

/** What a client may send. */
export const clientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), channels: z.array(z.string().max(200)).max(50) }),
]);

/** What the server sends. */
export type ServerFrame =
  | { type: 'subscribed'; channels: string[] }
  | {
      type: 'event';
      channel: string;
      id: number;
      name: string;
      payload: Record<string, unknown>;
      /** The staff member whose write published it; null for the service's own (jobs, monitoring). */
      actor_id: string | null;
      at: string;
    }
  | { type: 'notification'; channel: string; notification: NotificationView; at: string }
  | { type: 'error'; error: 'channel_not_allowed'; channels: string[] }
  | { type: 'error'; error: 'invalid_message' };
