import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { joinWaitlistBody, joinWaitlistResult, listWaitlistQuery, waitlistPage } from './schemas.js';
import { WaitlistService } from './service.js';

const tags = ['email'];

export function registerWaitlistRoutes(app: ZodApp, deps: Deps<'db'>): void {
  const waitlist = new WaitlistService(deps.db);

  app.post(
    '/v1/public/waitlist',
    {
      config: { rateLimit: 'waitlist' },
      schema: {
        operationId: 'joinWaitlist',
        tags,
        summary: 'Join the waitlist',
        description:
          '`email` (stored lowercased), optional `source` (max 100) and `referrer` (max 500). Answers 202 `{ ok: ' +
          'true }` whether the address is new or already on the list: a repeat changes nothing (the first source ' +
          'and referrer stay) and reveals nothing.',
        body: joinWaitlistBody,
        response: { 202: joinWaitlistResult },
      },
    },
    async (request, reply) => {
      await waitlist.join(request.body, request.ip ?? null);
      return reply.code(202).send({ ok: true as const });
    },
  );

  app.get(
    '/v1/admin/email/waitlist',
    {
      config: { perms: ['email.read'] },
      schema: {
        operationId: 'listWaitlistSignups',
        tags,
        summary: 'List waitlist signups',
        description:
          'Paged with `meta.total`, newest first by default (`sort=created_at|email:asc|desc`). `q` matches the ' +
          'address (case-insensitive); `source` filters exactly. Import them into an audience with `PUT ' +
          '/v1/admin/email/audiences/{id}/members`.',
        querystring: listWaitlistQuery,
        response: { 200: waitlistPage },
      },
    },
    (request) => waitlist.list(request.query),
  );
}
