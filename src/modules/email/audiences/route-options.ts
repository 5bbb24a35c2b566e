// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import { LARGE_BODY_LIMIT_BYTES } from '../../../kernel/http/json-body.js';
import {
  audienceIdParams,
  audiencesPage,
  audienceView,
  createAudienceBody,
  listAudiencesQuery,
  listMembersQuery,
  memberParams,
  membersPage,
  previewCountView,
  replaceMembersBody,
  replaceMembersResult,
  updateAudienceBody,
} from './schemas.js';

const tags = ['email'];
const read = { perms: ['email.read'] } as const;
const write = { perms: ['email.write'] } as const;
const noContent = { 204: z.null().describe('Done') };
const MAILABLE =
  'Mailable: the address is not on the suppression list and its account (if any) is not banned or deleted.';

export const listEmailAudiences = {
  config: read,
  schema: {
    operationId: 'listEmailAudiences',
    tags,
    summary: 'List email audiences',
    description:
      'Paged with `meta.total`, newest first by default (`sort=created_at|updated_at|name:asc|desc`). `q` ' +
      'matches the name (case-insensitive). Each with its `member_count`.',
    querystring: listAudiencesQuery,
    response: { 200: audiencesPage },
  },
} as const;

export const createEmailAudience = {
  config: write,
  schema: {
    operationId: 'createEmailAudience',
    tags,
    summary: 'Create an email audience',
    description:
      'An empty list named `name` (1 to 200) with an optional `description` (max 500); fill it with `PUT ' +
      '…/{id}/members`. Answers 201 with the audience. Audited (`email.audience.create`).',
    body: createAudienceBody,
    response: { 201: audienceView },
  },
} as const;

export const getEmailAudience = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getEmailAudience',
    tags,
    summary: 'Get an email audience',
    description: '404 `not_found` for an unknown id.',
    params: audienceIdParams,
    response: { 200: audienceView },
  },
} as const;

export const updateEmailAudience = {
  config: { ...write, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'updateEmailAudience',
    tags,
    summary: 'Edit an email audience',
    description:
      'Replaces `name` and `description` (omitted or null clears it); members are untouched. Answers the ' +
      'audience. 404 `not_found`. Audited (`email.audience.update`) with both values before and after; a body ' +
      'that changes nothing writes nothing.',
    params: audienceIdParams,
    body: updateAudienceBody,
    response: { 200: audienceView },
  },
} as const;

export const deleteEmailAudience = {
  config: { ...write, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'deleteEmailAudience',
    tags,
    summary: 'Delete an email audience',
    description:
      'Removes the audience and its members. 404 `not_found`. Audited (`email.audience.delete`) with its name ' +
      'and member count.',
    params: audienceIdParams,
    response: noContent,
  },
} as const;

export const listEmailAudienceMembers = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'listEmailAudienceMembers',
    tags,
    summary: 'List the members of an email audience',
    description:
      `Paged with \`meta.total\`, by address by default (\`sort=email|created_at:asc|desc\`). \`q\` matches the ` +
      `address (case-insensitive); \`mailable\` filters. Each member says whether mail would go to it now, and ` +
      `why not. ${MAILABLE} 404 \`not_found\` for an unknown audience.`,
    params: audienceIdParams,
    querystring: listMembersQuery,
    response: { 200: membersPage },
  },
} as const;

export const setEmailAudienceMembers = {
  config: {
    ...write,
    errors: {
      400: ['validation_failed'],
      404: ['audience'],
      422: ['invalid_state', 'too_many_members'],
    },
  },
  // The CSV's 5,000,000 characters may double in JSON escaping: this route alone takes large bodies.
  bodyLimit: LARGE_BODY_LIMIT_BYTES,
  schema: {
    operationId: 'setEmailAudienceMembers',
    tags,
    summary: 'Replace the members of an email audience',
    description:
      'Replaces the whole member list, in one transaction, from `members` (at most 50,000) or a `csv` (at most ' +
      '5,000,000 characters); answers `{ count }`. Refusals leave the old list untouched. In depth: ' +
      '[docs/api/email.md](docs/api/email.md#replace-the-members-of-an-email-audience).',
    params: audienceIdParams,
    body: replaceMembersBody,
    response: { 200: replaceMembersResult },
  },
} as const;

export const removeEmailAudienceMember = {
  config: { ...write, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'removeEmailAudienceMember',
    tags,
    summary: 'Remove one member from an email audience',
    description:
      '404 `not_found` when the audience is unknown or the member is not on it. Audited ' +
      '(`email.audience.member.remove`) with the address removed.',
    params: memberParams,
    response: noContent,
  },
} as const;

export const countEmailAudienceRecipients = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'countEmailAudienceRecipients',
    tags,
    summary: 'How many members of an email audience are mailable now',
    description:
      `\`total\` members; \`suppressed\`: address on the suppression list; \`deleted_users\`: account deleted ` +
      `or banned; \`mailable\`: neither (a member can be both suppressed and a deleted user, so \`mailable\` is ` +
      `not always \`total - suppressed - deleted_users\`). ${MAILABLE} Counted when asked: an unsubscribe shows ` +
      `at once. 404 \`not_found\`.`,
    params: audienceIdParams,
    response: { 200: previewCountView },
  },
} as const;
