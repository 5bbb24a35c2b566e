import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { SupportAttachments } from '../files/index.js';
import { MySupportService } from './player-service.js';
import { SupportDeskService } from './staff-service.js';
import {
  addMySupportTicketMessage,
  closeSupportTicket,
  createMySupportAttachmentUploadUrl,
  createMySupportTicket,
  getMySupportTicket,
  getSupportTicket,
  listMySupportTickets,
  listSupportTickets,
  reopenSupportTicket,
  replySupportTicket,
} from './route-options.js';

// Support (issue 7): the player opens tickets and writes to them, with files uploaded through
// storage; staff read the queue, reply (mailed to the player), close and reopen.

/** The player's side: their tickets and the files they attach. */
export function registerMySupportRoutes(app: ZodApp, deps: Deps<'db' | 'storage' | 'write'>): void {
  const attachments = new SupportAttachments(deps.db, deps.storage);
  const mine = new MySupportService(deps.db, deps.write, attachments);

  app.post('/v1/me/support/attachments/upload-url', createMySupportAttachmentUploadUrl, (request) =>
    attachments.issueUpload(actorOf(request).userId, request.body),
  );

  app.post('/v1/me/support', createMySupportTicket, async (request, reply) =>
    reply.code(201).send(await mine.open(actorOf(request), request.body)),
  );

  app.get('/v1/me/support', listMySupportTickets, (request) => mine.list(actorOf(request).userId, request.query));

  app.get('/v1/me/support/:id', getMySupportTicket, (request) => mine.get(actorOf(request).userId, request.params.id));

  app.post('/v1/me/support/:id/messages', addMySupportTicketMessage, (request) =>
    mine.addMessage(actorOf(request), request.params.id, request.body),
  );
}

/** The staff's side: the queue, replies, closing and reopening. */
export function registerSupportDeskRoutes(app: ZodApp, deps: Deps<'db' | 'storage' | 'write'>): void {
  const desk = new SupportDeskService(deps.db, deps.write, new SupportAttachments(deps.db, deps.storage));

  app.get('/v1/admin/support/tickets', listSupportTickets, (request) => desk.list(request.query));

  app.get('/v1/admin/support/tickets/:id', getSupportTicket, (request) => desk.get(request.params.id));

  app.post('/v1/admin/support/tickets/:id/reply', replySupportTicket, (request) =>
    desk.reply(actorOf(request), request.params.id, request.body),
  );

  app.post('/v1/admin/support/tickets/:id/close', closeSupportTicket, (request) =>
    desk.close(actorOf(request), request.params.id, request.body?.reason),
  );

  app.post('/v1/admin/support/tickets/:id/reopen', reopenSupportTicket, (request) =>
    desk.reopen(actorOf(request), request.params.id, request.body?.reason),
  );
}
