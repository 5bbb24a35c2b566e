import { publicBaseUrlOf } from '../../../config.js';
import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { unsubscribeUrl, WITHHELD_TOKEN } from '../unsubscribe-token.js';
import { EmailTemplatesService } from './service.js';
import {
  createEmailTemplate,
  deleteEmailTemplate,
  getEmailTemplate,
  getEmailTemplateVersion,
  listEmailTemplates,
  previewEmailTemplate,
  publishEmailTemplate,
  saveEmailTemplateVersion,
  unpublishEmailTemplate,
  updateEmailTemplate,
} from './route-options.js';

const base = '/v1/admin/email/templates';

/** Templates: created, listed, renamed, deleted. */
export function registerEmailTemplateRoutes(app: ZodApp, deps: Deps<'config' | 'db' | 'write'>): void {
  const templates = templatesService(deps);

  app.get(base, listEmailTemplates, (request) => templates.list(request.query));

  app.post(base, createEmailTemplate, async (request, reply) =>
    reply.code(201).send(await templates.create(actorOf(request), request.body)),
  );

  app.get(`${base}/:key`, getEmailTemplate, (request) => templates.get(request.params.key));

  app.patch(`${base}/:key`, updateEmailTemplate, (request) =>
    templates.update(actorOf(request), request.params.key, request.body),
  );

  app.delete(`${base}/:key`, deleteEmailTemplate, async (request, reply) => {
    await templates.delete(actorOf(request), request.params.key);
    return reply.code(204).send(null);
  });
}

/** A template's versions: stored, read, published, previewed. */
export function registerEmailTemplateVersionRoutes(app: ZodApp, deps: Deps<'config' | 'db' | 'write'>): void {
  const templates = templatesService(deps);

  app.post(`${base}/:key/versions`, saveEmailTemplateVersion, (request) =>
    templates.addVersion(actorOf(request), request.params.key, request.body),
  );

  app.get(`${base}/:key/versions/:version`, getEmailTemplateVersion, (request) =>
    templates.version(request.params.key, request.params.version),
  );

  app.post(`${base}/:key/publish`, publishEmailTemplate, (request) =>
    templates.publish(actorOf(request), request.params.key, request.body.version),
  );

  app.post(`${base}/:key/unpublish`, unpublishEmailTemplate, async (request, reply) => {
    await templates.unpublish(actorOf(request), request.params.key);
    return reply.code(204).send(null);
  });

  app.post(`${base}/:key/preview`, previewEmailTemplate, (request) =>
    templates.preview(request.params.key, request.body),
  );
}

function templatesService(deps: Deps<'config' | 'db' | 'write'>): EmailTemplatesService {
  const publicBaseUrl = publicBaseUrlOf(deps.config);
  return new EmailTemplatesService(deps.db, deps.write, {
    // The sample link shows where the real one goes, its token withheld: a signed one would unsubscribe
    // whichever address the preview names.
    unsubscribeUrl: () => unsubscribeUrl(publicBaseUrl, WITHHELD_TOKEN),
  });
}
