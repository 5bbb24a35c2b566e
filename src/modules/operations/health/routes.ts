import { AppError } from '../../../kernel/errors.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { ReadinessService } from './readiness.js';
import { healthBody, livenessBody, readinessBody } from './schemas.js';
import { HealthService } from './service.js';

const tags = ['system'];
const ALWAYS_ANSWERED =
  'Open (no token), never rate-limited, never refused by a maintenance level or load shedding, and not counted ' +
  'in the incident signals.';

export function registerHealthRoutes(app: ZodApp, deps: Deps<'db' | 'drain' | 'limiter'>): void {
  const health = new HealthService(deps.db);
  const readiness = new ReadinessService({
    db: deps.db,
    drain: deps.drain,
    probeRedis: () => deps.limiter.probeStore(),
  });

  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        tags,
        summary: 'Liveness, with the database state',
        description: 'Answers 200 while the process serves, at every maintenance level, without a token.',
        response: { 200: healthBody },
      },
    },
    () => health.status(),
  );

  app.get(
    '/health/live',
    {
      schema: {
        operationId: 'getLiveness',
        tags,
        summary: 'Liveness probe: the process answers',
        description:
          'Answers 200 whenever the process can answer at all, whatever its database or peers are doing: an ' +
          `orchestrator restarts an instance whose liveness probe fails. ${ALWAYS_ANSWERED}`,
        response: { 200: livenessBody },
      },
    },
    () => ({ status: 'ok' as const }),
  );

  app.get(
    '/health/ready',
    {
      config: { errors: { 503: ['not_ready'] } },
      schema: {
        operationId: 'getReadiness',
        tags,
        summary: 'Readiness probe: this instance can take traffic',
        description:
          '200 when the database, the applied migrations and Redis (if set) answer and the instance is not ' +
          'draining; else 503 `not_ready` naming the failing parts. Open, never rate-limited or refused by ' +
          'maintenance; checks run at most once a second. In depth: ' +
          '[docs/api/health.md](docs/api/health.md#readiness-probe-this-instance-can-take-traffic).',
        response: { 200: readinessBody },
      },
    },
    async () => {
      const { ready, failing, checks } = await readiness.check();
      if (!ready) throw new AppError(503, 'not_ready', { failing, checks });
      return { status: 'ready' as const, checks };
    },
  );
}
