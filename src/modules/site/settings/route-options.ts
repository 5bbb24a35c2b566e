// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import { versionResult } from '../../../kernel/answers.js';
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

const tags = ['site settings'];
const sectionRule =
  'Sections general, branding, seo, auth_ui, support and legal need `site.write`; billing and credits ' +
  '`billing.write`; limits and maintenance `settings.write` (403 `forbidden` with `details.perm` naming it). ' +
  'Unknown section: 404 `not_found`.';

export const listSiteSettings = {
  config: { perms: SETTINGS_READ_PERMISSIONS },
  schema: {
    operationId: 'listSiteSettings',
    tags,
    summary: 'Every settings section: draft and published value',
    response: { 200: sectionsBody },
  },
} as const;

export const saveSiteSettingsDraft = {
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
} as const;

export const publishSiteSettingsSection = {
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
} as const;

export const rollbackSiteSettingsSection = {
  config: { errors: { 404: ['not_found'] }, perms: SETTINGS_WRITE_PERMISSIONS },
  schema: {
    operationId: 'rollbackSiteSettingsSection',
    tags,
    summary: 'Publish an older version again',
    description: `Its value becomes a new version; history is kept. 404 \`not_found\` for an unknown version. ${sectionRule}`,
    params: sectionParams,
    body: rollbackBody,
    response: { 200: versionResult },
  },
} as const;

export const listSiteSettingsVersions = {
  config: { errors: { 404: ['not_found'] }, perms: SETTINGS_READ_PERMISSIONS },
  schema: {
    operationId: 'listSiteSettingsVersions',
    tags,
    summary: "A section's published versions, newest first",
    params: sectionParams,
    querystring: versionsQuery,
    response: { 200: versionsPage },
  },
} as const;
