import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { EmailAudiencesService } from './service.js';
import {
  countEmailAudienceRecipients,
  createEmailAudience,
  deleteEmailAudience,
  getEmailAudience,
  listEmailAudienceMembers,
  listEmailAudiences,
  removeEmailAudienceMember,
  setEmailAudienceMembers,
  updateEmailAudience,
} from './route-options.js';

const BASE = '/v1/admin/email/audiences';

/** Audiences: created, listed, changed, deleted. */
export function registerEmailAudienceRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const audiences = new EmailAudiencesService(deps.db, deps.write);

  app.get(BASE, listEmailAudiences, (request) => audiences.list(request.query));

  app.post(BASE, createEmailAudience, async (request, reply) =>
    reply.code(201).send(await audiences.create(actorOf(request), request.body)),
  );

  app.get(`${BASE}/:id`, getEmailAudience, (request) => audiences.get(request.params.id));

  app.put(`${BASE}/:id`, updateEmailAudience, (request) =>
    audiences.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(`${BASE}/:id`, deleteEmailAudience, async (request, reply) => {
    await audiences.delete(actorOf(request), request.params.id);
    return reply.code(204).send(null);
  });
}

/** An audience's members, and how many of them a send would reach. */
export function registerEmailAudienceMemberRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const audiences = new EmailAudiencesService(deps.db, deps.write);

  app.get(`${BASE}/:id/members`, listEmailAudienceMembers, (request) =>
    audiences.listMembers(request.params.id, request.query),
  );

  app.put(`${BASE}/:id/members`, setEmailAudienceMembers, (request) =>
    audiences.replaceMembers(actorOf(request), request.params.id, request.body),
  );

  app.delete(`${BASE}/:id/members/:memberId`, removeEmailAudienceMember, async (request, reply) => {
    await audiences.removeMember(actorOf(request), request.params.id, request.params.memberId);
    return reply.code(204).send(null);
  });

  app.get(`${BASE}/:id/preview-count`, countEmailAudienceRecipients, (request) =>
    audiences.previewCount(request.params.id),
  );
}
