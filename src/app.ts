import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Config } from './config.js';
import './kernel/http/fastify-types.js';
import { handleError, installErrorHandling, installNotFoundHandler } from './kernel/errors.js';
import { installCompression } from './kernel/http/compression.js';
import { installCors } from './kernel/http/cors.js';
import { unstorableInput } from './kernel/http/input-guard.js';
import { DEFAULT_BODY_LIMIT_BYTES, installJsonBodyParser } from './kernel/http/json-body.js';
import { installOpenApi } from './kernel/openapi.js';
import { requestLogger, serviceRequestId, stampAnswer } from './kernel/http/request-id.js';
import type { ZodApp } from './kernel/http/zod-app.js';
import { installMetrics } from './kernel/metrics/install.js';
import { traceRequests } from './kernel/tracing/http.js';
import { installRequestPipeline } from './kernel/request-pipeline.js';
import { createResponseSerializerCompiler } from './lib/response-serializer.js';
import { answerClientError, installSlowClientGuards, serverTimeouts } from './kernel/http/slow-clients.js';
import { API_TAGS, AREAS } from './modules/index.js';
import { partsOf, type Platform } from './composition/platform.js';

export interface BuildAppOptions {
  /** Extra routes (tests add probe routes, e.g. for rate limits); registered after the modules. */
  extraRoutes?: (app: ZodApp, platform: Platform) => void;
  logger?: boolean;
  /** Each answer also parsed by zod and compared with the compiled shaper's (tests; response-serializer.ts). */
  verifyResponseShaping?: boolean;
}

/** Zod validation whose verdict keeps each zod issue, so the 400 body shows zod's own fields. */
function zodValidatorCompiler({ schema }: { schema: z.ZodType }) {
  const refused = (issue: z.core.$ZodIssue) => ({
    error: [{ params: { issue }, message: issue.message, keyword: issue.code, instancePath: '', schemaPath: '' }],
  });
  return (data: unknown) => {
    // No route takes runaway nesting (refinements would overflow serialising it, a 500), nor
    // text PostgreSQL cannot store (U+0000, lone surrogates: the query would fail, a 500).
    const tooDeep = unstorableInput(data, { depth: true });
    if (tooDeep !== undefined) return refused(tooDeep);
    const result = schema.safeParse(data);
    if (result.success) {
      const untextual = unstorableInput(result.data, { text: true });
      return untextual === undefined ? { value: result.data } : refused(untextual);
    }
    return {
      error: result.error.issues.map((issue) => ({
        params: { issue },
        message: issue.message,
        keyword: issue.code,
        instancePath: '',
        schemaPath: '',
      })),
    };
  };
}

/** A hop count trusts that many proxies nearest to us. */
function fastifyTrustProxy(trust: Config['trustProxy']) {
  return typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
}

export async function buildApp(platform: Platform, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger === false ? undefined : platform.log,
    genReqId: serviceRequestId,
    childLoggerFactory: requestLogger,
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      disableRequestLogging: platform.config.production,
    }),
    trustProxy: fastifyTrustProxy(platform.config.trustProxy),
    bodyLimit: DEFAULT_BODY_LIMIT_BYTES,
    // Fastify's default (100) would 404 documented path values: store slugs up to 128, runtime node ids up to 200.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Node's own header and whole-request budgets (408), and its refusals before any request
    // exists, answered in the service's shape (slow-clients.ts).
    ...serverTimeouts(platform.config),
    clientErrorHandler: answerClientError,
    // Errors the router raises before any hook (a malformed URL) get our body and request id too.
    frameworkErrors: (error, request, reply) => {
      stampAnswer(request, reply);
      return handleError(error, request, reply);
    },
  });
  // Around Fastify's handler, and the first request hook: everything a request does is in its span.
  if (platform.tracing !== undefined) traceRequests(app, platform.tracing.tracer);
  app.setValidatorCompiler(zodValidatorCompiler as never);
  app.setSerializerCompiler(createResponseSerializerCompiler({ verifyResponseShaping: options.verifyResponseShaping }));
  installErrorHandling(app);
  installJsonBodyParser(app);
  // First of the request hooks, so requests the ones below answer early are measured too.
  installMetrics(app, platform);
  // Each route's own hooks, added as routes are declared: before any plugin declares one (the
  // CORS preflight route). Route hooks run after the global ones (metrics, CORS), so refusals
  // carry CORS's allow header too (cors.ts).
  const pipeline = installRequestPipeline(app, platform);
  const slowClients = installSlowClientGuards(app, platform.config);
  installNotFoundHandler(app, { ...pipeline.notFoundHooks, preParsing: slowClients.notFoundHook });
  await installCors(app, platform.config.corsOrigins);
  await installCompression(app);
  await installOpenApi(app, API_TAGS, { docsUi: platform.config.docsUi });

  const zodApp = app.withTypeProvider<ZodTypeProvider>();
  for (const area of AREAS) {
    // Each area gets the parts it declared (its module.ts) and nothing else.
    const deps = partsOf(platform, area.needs) as never;
    for (const register of area.routes) register(zodApp, deps);
  }
  options.extraRoutes?.(zodApp, platform);
  return app;
}
