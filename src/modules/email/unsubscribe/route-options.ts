// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import {
  addSuppressionBody,
  invalidLinkAnswer,
  invalidLinkPageAnswer,
  linkAnswer,
  listSuppressionsQuery,
  removeSuppressionQuery,
  suppressionParams,
  suppressionsPage,
  suppressionView,
  unsubscribeBody,
  unsubscribedAnswer,
  unsubscribeQuery,
} from './schemas.js';

const tags = ['email'];

export const getEmailUnsubscribePage = {
  config: { rateLimit: 'unsubscribe' },
  schema: {
    tags,
    operationId: 'getEmailUnsubscribePage',
    summary: 'Unsubscribe page (the link in every marketing mail)',
    description:
      'The HTML page an unsubscribe link opens: the address (masked) and a button that posts here. A GET never ' +
      'unsubscribes; API clients get JSON. In depth: ' +
      '[docs/api/email.md](docs/api/email.md#unsubscribe-page-the-link-in-every-marketing-mail).',
    querystring: unsubscribeQuery,
    response: { 200: linkAnswer, 400: invalidLinkPageAnswer },
  },
} as const;

export const unsubscribeEmail = {
  config: { rateLimit: 'unsubscribe' },
  schema: {
    tags,
    operationId: 'unsubscribeEmail',
    summary: "Unsubscribe (RFC 8058 one-click, and the page's button)",
    description:
      "Puts the link token's address on the suppression list for marketing mail, at once and idempotently (a " +
      "one-click POST or the page's button). API clients get JSON. In depth: " +
      '[docs/api/email.md](docs/api/email.md#unsubscribe-rfc-8058-one-click-and-the-pages-button).',
    querystring: unsubscribeQuery,
    body: unsubscribeBody,
    consumes: ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'],
    response: { 200: unsubscribedAnswer, 400: invalidLinkAnswer },
  },
} as const;

export const listEmailSuppressions = {
  config: { perms: ['email.read'] },
  schema: {
    operationId: 'listEmailSuppressions',
    tags,
    summary: 'List suppressed addresses',
    description:
      'Addresses that get no marketing mail. Paged with `meta.total`, newest first by default ' +
      '(`sort=created_at|email:asc|desc`). `q` matches the address (case-insensitive); `reason` filters.',
    querystring: listSuppressionsQuery,
    response: { 200: suppressionsPage },
  },
} as const;

export const createEmailSuppression = {
  config: { perms: ['email.write'] },
  schema: {
    operationId: 'createEmailSuppression',
    tags,
    summary: 'Suppress an address',
    description:
      'Stops marketing mail to `email` (stored lowercased) with `reason` `manual` (default), `bounced` or ' +
      '`complained`, source `staff`. Answers 201 with the row and audits (`email.suppression.add`, `note` as ' +
      'its reason); an address already suppressed answers 200 with the row as it was (its first reason stays) ' +
      'and changes nothing.',
    body: addSuppressionBody,
    response: { 200: suppressionView, 201: suppressionView },
  },
} as const;

export const deleteEmailSuppression = {
  config: { perms: ['email.write'], errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'deleteEmailSuppression',
    tags,
    summary: 'Remove an address from the suppression list',
    description:
      'Marketing mail may go to the address again (any case; URL-encode it). 404 `not_found` when it is not ' +
      'suppressed. Audited (`email.suppression.remove`) with the row removed and the optional `reason`. Take ' +
      'care with `unsubscribed`: the person asked for no mail.',
    params: suppressionParams,
    querystring: removeSuppressionQuery,
    response: { 204: z.null().describe('Done') },
  },
} as const;
