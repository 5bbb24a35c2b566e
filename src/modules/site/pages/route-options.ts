// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { idResult, versionResult } from '../../../kernel/answers.js';
import { z } from 'zod';
import {
  createPageBody,
  emptyBody,
  listPagesQuery,
  pageBody,
  pageIdParams,
  pagesPage,
  publicPageBody,
  publicPageParams,
  publishBody,
  saveVersionBody,
  updatePageBody,
  versionBody,
  versionParams,
  versionsPage,
  versionsQuery,
} from './schemas.js';

const tags = ['site pages'];
const noContent = { 204: z.null().describe('Done') };
const read = { perms: ['site.read'] } as const;
const write = { perms: ['site.write'] } as const;

export const createSitePage = {
  config: { ...write, errors: { 409: ['conflict'] } },
  schema: {
    operationId: 'createSitePage',
    tags,
    summary: 'Create a page',
    description: 'The page starts with no versions and unpublished. A taken slug is 409 `conflict`.',
    body: createPageBody,
    response: { 201: idResult },
  },
} as const;

export const listSitePages = {
  config: read,
  schema: {
    operationId: 'listSitePages',
    tags,
    summary: 'List pages',
    description: '`q` matches slug or title.',
    querystring: listPagesQuery,
    response: { 200: pagesPage },
  },
} as const;

export const getSitePage = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getSitePage',
    tags,
    summary: 'Get a page',
    description: 'With its live and newest version numbers. 404 `not_found`.',
    params: pageIdParams,
    response: { 200: pageBody },
  },
} as const;

export const updateSitePage = {
  config: { ...write, errors: { 404: ['not_found'], 409: ['conflict'] } },
  schema: {
    operationId: 'updateSitePage',
    tags,
    summary: 'Rename a page or change its slug',
    description:
      'At least one of `slug`, `title`; omitted fields keep their value. A live page shows the change at ' +
      'once. 404 `not_found`; 409 `conflict` for a taken slug.',
    params: pageIdParams,
    body: updatePageBody,
    response: noContent,
  },
} as const;

export const saveSitePageVersion = {
  config: { ...write, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'saveSitePageVersion',
    tags,
    summary: 'Store a new page version',
    description:
      'Stores the markdown as the next immutable version and returns its number; nothing goes live. 404 ' +
      '`not_found` for an unknown page.',
    params: pageIdParams,
    body: saveVersionBody,
    response: { 200: versionResult },
  },
} as const;

export const listSitePageVersions = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'listSitePageVersions',
    tags,
    summary: "A page's versions, newest first",
    description: 'Who stored each and when (markdown left out: read one version for it). 404 `not_found`.',
    params: pageIdParams,
    querystring: versionsQuery,
    response: { 200: versionsPage },
  },
} as const;

export const getSitePageVersion = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getSitePageVersion',
    tags,
    summary: 'One page version with its markdown',
    description: '404 `not_found` for an unknown page or version.',
    params: versionParams,
    response: { 200: versionBody },
  },
} as const;

export const publishSitePage = {
  config: { ...write, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'publishSitePage',
    tags,
    summary: 'Make a stored version live',
    description:
      'Any stored version (an older one rolls back). Emits a dashboard event; the public site shows it at ' +
      'once. 404 `not_found` for an unknown page or version.',
    params: pageIdParams,
    body: publishBody,
    response: { 200: versionResult },
  },
} as const;

export const unpublishSitePage = {
  config: { ...write, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'unpublishSitePage',
    tags,
    summary: 'Take a page offline',
    description: 'Its versions are kept. A page that is not live is left as it is. 404 `not_found`.',
    params: pageIdParams,
    body: emptyBody,
    response: noContent,
  },
} as const;

export const getPublicSitePage = {
  config: { errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getPublicSitePage',
    tags: ['public'],
    summary: 'A published page by slug',
    description:
      "The live version's markdown as stored. 404 `not_found` for an unknown or unpublished page. Carries an " +
      '`ETag` (304 on `If-None-Match`).',
    params: publicPageParams,
    response: { 200: publicPageBody, 304: z.null().describe('Not modified') },
  },
} as const;
