import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { answerWithEtag } from '../../site/public/index.js';
import { BillingCatalogService } from './service.js';
import {
  createPlanProduct,
  createPlanProductPrice,
  getPlanProduct,
  listPlanProducts,
  listPublicProducts,
  setPlanPriceActive,
  updatePlanProduct,
} from './route-options.js';

/** Staff's catalogue: products and their prices. */
export function registerBillingCatalogRoutes(app: ZodApp, deps: Deps<'db' | 'payments' | 'write'>): void {
  const catalog = new BillingCatalogService(deps.db, deps.write, deps.payments.kind);

  app.get('/v1/admin/plans/products', listPlanProducts, (request) => catalog.list(request.query));

  app.post('/v1/admin/plans/products', createPlanProduct, async (request, reply) =>
    reply.code(201).send(await catalog.createProduct(actorOf(request), request.body)),
  );

  app.get('/v1/admin/plans/products/:id', getPlanProduct, (request) => catalog.get(request.params.id));

  app.patch('/v1/admin/plans/products/:id', updatePlanProduct, (request) =>
    catalog.updateProduct(actorOf(request), request.params.id, request.body),
  );

  app.post('/v1/admin/plans/products/:id/prices', createPlanProductPrice, async (request, reply) =>
    reply.code(201).send(await catalog.createPrice(actorOf(request), request.params.id, request.body)),
  );

  app.patch('/v1/admin/plans/prices/:id', setPlanPriceActive, (request) =>
    catalog.updatePrice(actorOf(request), request.params.id, request.body),
  );
}

/** The products on sale, for the public site (products change rarely: a revalidation is a cheap 304). */
export function registerPublicProductRoutes(app: ZodApp, deps: Deps<'db' | 'payments' | 'write'>): void {
  const catalog = new BillingCatalogService(deps.db, deps.write, deps.payments.kind);

  app.get('/v1/public/products', listPublicProducts, async (request, reply) =>
    answerWithEtag(request, reply, await catalog.publicProducts()),
  );
}
