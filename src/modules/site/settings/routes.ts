import { z } from 'zod';
import { versionResult } from '../../../kernel/answers.js';
import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import {
  draftBody,
  publishBody,
  rollbackBody,
  sectionParams,
  sectionsBody,
  versionsPage,
  versionsQuery,
} from './schemas.js';
import { SETTINGS_READ_PERMISSIONS, SETTINGS_WRITE_PERMISSIONS } from './sections.js';
import { SiteSettingsService } from './service.js';

const tags = ['site settings'];
const sectionRule =
  'Sections general, branding, seo, auth_ui, support and legal need `site.write`; billing and credits ' +
  '`billing.write`; limits and maintenance `settings.write` (403 `forbidden` with `details.perm` naming it). ' +
  'Unknown section: 404 `not_found`.';

export function registerSiteSettingsRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const settings = new SiteSettingsService(deps.db, deps.write);

  app.get(
    '/v1/admin/site/settings',
    {
      config: { perms: SETTINGS_READ_PERMISSIONS },
      schema: {
        operationId: 'listSiteSettings',
        tags,
        summary: 'Every settings section: draft and published value',
        response: { 200: sectionsBody },
      },
    },
    () => settings.list(),
  );

  app.put(
    '/v1/admin/site/settings/:section',
    {
      config: { errors: { 404: ['not_found'] }, perms: SETTINGS_WRITE_PERMISSIONS },
      schema: {
        operationId: 'saveSiteSettingsDraft',
        tags,
        summary: 'Save a section draft',
        description: `Nothing goes live. ${sectionRule}`,
        params: sectionParams,
        body: draftBody,
        response: { 204: z.null().describe('Saved') },
      },
    },
    async (request, reply) => {
      await settings.saveDraft(actorOf(request), request.params.section, request.body.draft);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/admin/site/settings/:section/publish',
    {
      config: { errors: { 404: ['not_found'] }, perms: SETTINGS_WRITE_PERMISSIONS },
      schema: {
        operationId: 'publishSiteSettingsSection',
        tags,
        summary: 'Publish a section draft',
        description: `The draft becomes the next version, live on every instance at once. ${sectionRule}`,
        params: sectionParams,
        body: publishBody,
        response: { 200: versionResult },
      },
    },
    (request) => settings.publish(actorOf(request), request.params.section, request.body?.note),
  );

  app.post(
    '/v1/admin/site/settings/:section/rollback',
    {
      config: { errors: { 404: ['not_found'] }, perms: SETTINGS_WRITE_PERMISSIONS },
      schema: {
        operationId: 'rollbackSiteSettingsSection',
        tags,
        summary: 'Publish an older version again',
        description:
          `Its value becomes a new version; history is kept. 404 \`not_found\` for an unknown version. ` +
          `${sectionRule}`,
        params: sectionParams,
        body: rollbackBody,
        response: { 200: versionResult },
      },
    },
    (request) => settings.rollback(actorOf(request), request.params.section, request.body.version, request.body.note),
  );

  app.get(
    '/v1/admin/site/settings/:section/versions',
    {
      config: { errors: { 404: ['not_found'] }, perms: SETTINGS_READ_PERMISSIONS },
      schema: {
        operationId: 'listSiteSettingsVersions',
        tags,
        summary: "A section's published versions, newest first",
        params: sectionParams,
        querystring: versionsQuery,
        response: { 200: versionsPage },
      },
    },
    (request) => settings.versions(request.params.section, request.query),
  );
}
