import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { publicBaseUrlOf } from '../../config.js';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { parseFormBody } from '../email/unsubscribe/index.js';
import { DeviceApprovalService } from './approvals.js';
import { oauthErrorHandler } from './oauth-errors.js';
import {
  approveMyDevice,
  listMyDeviceAuthorizations,
  pollDeviceToken,
  revokeMyDeviceAuthorization,
  startDeviceAuthorization,
} from './route-options.js';
import { DeviceFlowService, POLL_INTERVAL_SECONDS, type DeviceClientContext } from './service.js';

/** OAuth parameters are a few hundred bytes. */
const FORM_BODY_LIMIT_BYTES = 4_096;
/** RFC 6749 section 5.1: answers carrying credentials must not be cached. */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** RFC 8628 device authorization for the launcher: the public code and token endpoints (OAuth bodies, form or JSON). */
export function registerDeviceFlowRoutes(app: ZodApp, deps: Deps<'config' | 'db' | 'write'>): void {
  const { config } = deps;
  const verificationUri = `${publicBaseUrlOf(config)}/device`;
  const flow = new DeviceFlowService(deps.db, deps.write, { jwtSecret: config.jwtSecret, verificationUri });

  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    // OAuth clients post forms (RFC 6749 section 4.1.3); JSON is accepted too. Only in this scope.
    plain.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
      (request, body, done) => done(null, parseFormBody(String(request.headers['content-type']), body as string)),
    );
    const errorHandler = oauthErrorHandler(POLL_INTERVAL_SECONDS);

    scope.post('/v1/public/device/code', { ...startDeviceAuthorization, errorHandler }, async (request, reply) => {
      const answer = await flow.requestCode(request.body, clientContext(request));
      return reply.headers(NO_STORE).send(answer);
    });

    scope.post('/v1/public/device/token', { ...pollDeviceToken, errorHandler }, async (request, reply) => {
      const tokens = await flow.token(request.body, clientContext(request));
      return reply.headers(NO_STORE).send(tokens);
    });
  });
}

/** The player's approval of a device code, their device list and its revocation, under /v1/me. */
export function registerMyDevicesRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const approvals = new DeviceApprovalService(deps.db, deps.write);

  app.post('/v1/me/device/approve', approveMyDevice, (request) => approvals.decide(actorOf(request), request.body));

  app.get('/v1/me/device-authorizations', listMyDeviceAuthorizations, async (request) => ({
    data: await approvals.list(actorOf(request).userId),
  }));

  app.delete('/v1/me/device-authorizations/:id', revokeMyDeviceAuthorization, async (request, reply) => {
    await approvals.revoke(actorOf(request), request.params.id);
    return reply.code(204).send(null);
  });
}

function clientContext(request: { ip?: string; headers: Record<string, unknown> }): DeviceClientContext {
  const userAgent = request.headers['user-agent'];
  return { ip: request.ip ?? null, userAgent: typeof userAgent === 'string' ? userAgent : null };
}
