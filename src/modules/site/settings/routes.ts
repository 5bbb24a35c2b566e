import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { SiteSettingsService } from './service.js';
import {
  listSiteSettings,
  listSiteSettingsVersions,
  publishSiteSettingsSection,
  rollbackSiteSettingsSection,
  saveSiteSettingsDraft,
} from './route-options.js';

export function registerSiteSettingsRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const settings = new SiteSettingsService(deps.db, deps.write);

  app.get('/v1/admin/site/settings', listSiteSettings, () => settings.list());

  app.put('/v1/admin/site/settings/:section', saveSiteSettingsDraft, async (request, reply) => {
    await settings.saveDraft(actorOf(request), request.params.section, request.body.draft);
    return reply.code(204).send(null);
  });

  app.post('/v1/admin/site/settings/:section/publish', publishSiteSettingsSection, (request) =>
    settings.publish(actorOf(request), request.params.section, request.body?.note),
  );

  app.post('/v1/admin/site/settings/:section/rollback', rollbackSiteSettingsSection, (request) =>
    settings.rollback(actorOf(request), request.params.section, request.body.version, request.body.note),
  );

  app.get('/v1/admin/site/settings/:section/versions', listSiteSettingsVersions, (request) =>
    settings.versions(request.params.section, request.query),
  );
}
