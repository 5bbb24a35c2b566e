// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import { versionResult } from '../../../kernel/answers.js';
import {
  createTemplateBody,
  emptyBody,
  keyParams,
  listTemplatesQuery,
  newVersionBody,
  previewBody,
  previewResult,
  publishBody,
  templateDetail,
  templatesPage,
  updateTemplateBody,
  versionBody,
  versionParams,
} from './schemas.js';

const tags = ['email templates'];
const noContent = { 204: z.null().describe('Done') };
const read = { perms: ['email.read'] } as const;
const write = { perms: ['email.write'] } as const;
const MALFORMED =
  '422 `invalid_request` with `details.problems` (part, line, column, problem) for a malformed `{{` placeholder';

export const listEmailTemplates = {
  config: read,
  schema: {
    operationId: 'listEmailTemplates',
    tags,
    summary: 'List email templates',
    description:
      'Paged with `meta.total`, most recently changed first by default (`sort=updated_at|key|name:asc|desc`). ' +
      '`q` matches key or name; filters `category` and `published`.',
    querystring: listTemplatesQuery,
    response: { 200: templatesPage },
  },
} as const;

export const createEmailTemplate = {
  config: { ...write, errors: { 409: ['conflict'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'createEmailTemplate',
    tags,
    summary: 'Create an email template',
    description:
      `Unpublished; with \`version\`, its first version (1) is stored too. Answers the template as \`GET\` ` +
      `does. 409 \`conflict\` for a taken key; ${MALFORMED}. Refusals store nothing. Audited ` +
      `(\`email.template.create\`).`,
    body: createTemplateBody,
    response: { 201: templateDetail },
  },
} as const;

export const getEmailTemplate = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getEmailTemplate',
    tags,
    summary: 'Get an email template',
    description:
      "With every version (newest first, without bodies) and the published version's bodies. 404 `not_found`.",
    params: keyParams,
    response: { 200: templateDetail },
  },
} as const;

export const updateEmailTemplate = {
  config: { ...write, errors: { 404: ['not_found'] } },
  schema: {
    tags,
    operationId: 'updateEmailTemplate',
    summary: "Change a template's name, description or category",
    description:
      'At least one of `name`, `description`, `category`; omitted fields keep their value. Messages already ' +
      'queued keep the category they were queued with. 404 `not_found`. Audited (`email.template.update`).',
    params: keyParams,
    body: updateTemplateBody,
    response: { 200: templateDetail },
  },
} as const;

export const deleteEmailTemplate = {
  config: { ...write, errors: { 404: ['not_found'], 409: ['conflict'] } },
  schema: {
    operationId: 'deleteEmailTemplate',
    tags,
    summary: 'Delete an email template',
    description:
      'With all its versions. 409 `conflict` when mail was made from it (`details.messages` counts the ' +
      'messages; their content must stay readable): unpublish it instead. 404 `not_found`. Audited ' +
      '(`email.template.delete`).',
    params: keyParams,
    response: noContent,
  },
} as const;

export const saveEmailTemplateVersion = {
  config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'saveEmailTemplateVersion',
    tags,
    summary: 'Store a new template version',
    description:
      `Stores the next immutable version (concurrent adds get distinct numbers) and returns its number; nothing ` +
      `is published. 404 \`not_found\`; ${MALFORMED}. Audited (\`email.template.version\`).`,
    params: keyParams,
    body: newVersionBody,
    response: { 200: versionResult },
  },
} as const;

export const getEmailTemplateVersion = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getEmailTemplateVersion',
    tags,
    summary: 'One template version with its bodies',
    description: 'With the var names it reads. 404 `not_found` for an unknown template or version.',
    params: versionParams,
    response: { 200: versionBody },
  },
} as const;

export const publishEmailTemplate = {
  config: { ...write, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'publishEmailTemplate',
    tags,
    summary: 'Publish a template version',
    description:
      'Mail is made from this version from now on (an older one rolls back); messages already queued keep ' +
      'theirs. 404 `not_found` for an unknown template or version (`details.version`). Audited ' +
      '(`email.template.publish`).',
    params: keyParams,
    body: publishBody,
    response: { 200: versionResult },
  },
} as const;

export const unpublishEmailTemplate = {
  config: { ...write, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'unpublishEmailTemplate',
    tags,
    summary: 'Unpublish a template',
    description:
      'Campaigns and broadcasts can no longer use it (they refuse it with `invalid_request`) until a version is ' +
      'published again; its versions are kept. A template that is not published is left as it is. 404 ' +
      '`not_found`. Audited (`email.template.unpublish`).',
    params: keyParams,
    body: emptyBody,
    response: noContent,
  },
} as const;

export const previewEmailTemplate = {
  config: { ...read, errors: { 404: ['not_found'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'previewEmailTemplate',
    tags,
    summary: 'Render a template version',
    description:
      'Renders `version` (default: the published one, else the newest) with `vars`, as a recipient would get ' +
      "it (values HTML-escaped in `html`); `email` and `unsubscribe_url` get sample values unless given (the sample link's token reads `withheld`). " +
      'Stores nothing. 404 `not_found` for an unknown template or version; 422 `invalid_request` when the ' +
      'template has no versions.',
    params: keyParams,
    body: previewBody,
    response: { 200: previewResult },
  },
} as const;
