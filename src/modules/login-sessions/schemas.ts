import { z } from 'zod';

/** The bound of a session id in a path: the same as staff sign-out's `session_id`. */
export const sessionIdParams = z.object({ sessionId: z.string().min(1).max(200) });
export const userIdParams = z.object({ id: z.guid() });

const sessionFields = {
  session_id: z
    .string()
    .describe(
      "The tokens' `session_id` claim; `token-…` for a token that carries none (each such token is a session of " +
        'its own).',
    ),
  first_seen_at: z.date().describe('The first request the service saw from this session.'),
  last_seen_at: z
    .date()
    .describe('The latest request, to within 90 s (it moves once every 60 to 90 s, not on every request).'),
  ip: z.string().nullable().describe('The client address of the latest request (as of `last_seen_at`).'),
  first_ip: z.string().nullable().describe('The client address of the first request.'),
  user_agent: z.string().nullable().describe('The latest user agent (up to 512 characters).'),
  device_authorization_id: z
    .guid()
    .nullable()
    .describe('The launcher sign-in (device authorization) the session came from; null for any other sign-in.'),
};

export const myLoginSession = z.object({
  ...sessionFields,
  current: z.boolean().describe('The session of the token making this request.'),
});
export type MyLoginSession = z.infer<typeof myLoginSession>;
export const myLoginSessionsBody = z.object({ data: z.array(myLoginSession) }).describe("The caller's login sessions.");

export const staffLoginSession = z
  .object({
    ...sessionFields,
    revoked_at: z
      .date()
      .nullable()
      .describe(
        'When the session was ended: revoked alone (by the user or staff) or by a sign-out of every session; null ' +
          'while it lives.',
      ),
  })
  .meta({ id: 'LoginSession', description: 'A login session (one sign-in), as staff see it.' });
export type StaffLoginSession = z.infer<typeof staffLoginSession>;
export const staffLoginSessionsBody = z
  .object({ data: z.array(staffLoginSession) })
  .describe("The user's login sessions.");
