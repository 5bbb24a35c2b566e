// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { idResult } from '../../../kernel/answers.js';
import { z } from 'zod';
import {
  createdPriceResult,
  createPriceBody,
  createProductBody,
  listProductsQuery,
  priceBody,
  priceIdParams,
  productBody,
  productIdParams,
  productsBody,
  publicProductsBody,
  updatePriceBody,
  updateProductBody,
} from './schemas.js';

const tags = ['plans'];
const read = { perms: ['plans.read'] } as const;
const write = { perms: ['plans.write'] } as const;

export const listPlanProducts = {
  config: read,
  schema: {
    operationId: 'listPlanProducts',
    tags,
    summary: 'List billing products',
    description:
      'Every credit pack and plan (a small set, not paged), by `sortOrder` then name, each with all its ' +
      'prices (active and retired). `kind` and `isActive` filter.',
    querystring: listProductsQuery,
    response: { 200: productsBody },
  },
} as const;

export const createPlanProduct = {
  config: { ...write, errors: { 422: ['invalid_request'] } },
  schema: {
    operationId: 'createPlanProduct',
    tags,
    summary: 'Create a billing product',
    description:
      "A `credit_pack` (with `credits`) or a `plan` (with `tierKey`); the other kind's field is a 400. An " +
      'unknown `tierKey` is 422 `invalid_request` (`details.tierKey`). Prices are added with POST ' +
      '…/products/{id}/prices. Audited (`plans.product.create`).',
    body: createProductBody,
    response: { 201: idResult },
  },
} as const;

export const getPlanProduct = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getPlanProduct',
    tags,
    summary: 'Get a billing product',
    description: 'With all its prices. 404 `not_found` for an unknown id.',
    params: productIdParams,
    response: { 200: productBody },
  },
} as const;

export const updatePlanProduct = {
  config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'updatePlanProduct',
    tags,
    summary: 'Update a billing product',
    description:
      "Changes any of a product's fields (at least one; `kind` cannot change); omitted fields keep their " +
      'value. Products are never deleted: `isActive: false` takes one off sale. In depth: ' +
      '[docs/api/plans.md](docs/api/plans.md#update-a-billing-product).',
    params: productIdParams,
    body: updateProductBody,
    response: { 200: productBody },
  },
} as const;

export const createPlanProductPrice = {
  config: { ...write, errors: { 404: ['not_found'], 409: ['conflict'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'createPlanProductPrice',
    tags,
    summary: 'Add a price to a billing product',
    description:
      "Answers the price's `id` and `providerPriceId` (checkout's `priceId`). 404 `not_found` for an unknown " +
      'product; 409 `conflict` when `providerPriceId` is taken or the product already has an active price in ' +
      "the currency (deactivate it first); 422 `invalid_request` when `interval` does not suit the product's " +
      'kind, or `providerPriceId` is missing with the Stripe provider. Audited (`plans.price.create`).',
    params: productIdParams,
    body: createPriceBody,
    response: { 201: createdPriceResult },
  },
} as const;

export const setPlanPriceActive = {
  config: { ...write, errors: { 404: ['not_found'], 409: ['conflict'] } },
  schema: {
    operationId: 'setPlanPriceActive',
    tags,
    summary: 'Activate or deactivate a price',
    description:
      'Only `isActive` changes: amount, currency, interval and provider id are fixed once made (400); to ' +
      'change a price, add a new one and deactivate this one. Answers the price. 404 `not_found`; 409 ' +
      '`conflict` when activating it would make a second active price in its currency. Audited ' +
      '(`plans.price.update`); setting the current value writes nothing.',
    params: priceIdParams,
    body: updatePriceBody,
    response: { 200: priceBody },
  },
} as const;

export const listPublicProducts = {
  schema: {
    operationId: 'listPublicProducts',
    tags: ['public'],
    summary: 'The product catalog',
    description:
      'A bare array (spec): active products that have an active price, by sort order then name, each with its ' +
      "active prices. Pass a product's `id` as `productId` or a price's `priceId` to POST " +
      '/v1/me/billing/checkout-session. Carries an `ETag` (304 on `If-None-Match`).',
    response: { 200: publicProductsBody, 304: z.null().describe('Not modified') },
  },
} as const;
