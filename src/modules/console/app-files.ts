import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../../kernel/errors.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { consoleContentPolicy } from './content-policy.js';

/** Vite's hashed files: a changed file gets a new name, so a browser may keep each one for good. */
const ASSETS_DIR = 'assets';
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html and the unhashed files beside it: revalidated on every load (ETag), so a new build shows at once. */
const REVALIDATE = 'no-cache';
/** The build's compressed copies (console/build/compressed-copies.ts): sent by Accept-Encoding, never by name. */
const COMPRESSED_COPY = /\.(?:br|gz)$/;

/** Where a request path under /admin/ leads. */
type Target = { kind: 'file'; path: string; immutable: boolean } | { kind: 'app' } | { kind: 'missing' };

/** Whether `path` is a regular file inside `root` once every link is followed. */
function fileInside(root: string, path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    const realRoot = realpathSync(root);
    return realpathSync(path).startsWith(realRoot + sep);
  } catch {
    return false;
  }
}

/**
 * The file a path names inside the console's directory, the app (index.html) for a client-side
 * route, or nothing. `rest` is the router's decoded wildcard: a path that could leave the
 * directory (a `..` or `.` segment, an empty one, a backslash, a NUL) is nothing at all, never the
 * app; dotfiles are never files.
 */
function consoleTarget(root: string, rest: string): Target {
  const trimmed = rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (trimmed === '') return { kind: 'app' };
  if (/[\\\0]/.test(trimmed)) return { kind: 'missing' };
  const segments = trimmed.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return { kind: 'missing' };
  const inAssets = segments[0] === ASSETS_DIR;
  const path = resolve(root, ...segments);
  if (!path.startsWith(root + sep)) return { kind: 'missing' };
  const named =
    !segments.some((segment) => segment.startsWith('.')) && !COMPRESSED_COPY.test(trimmed) && fileInside(root, path);
  if (named) {
    return { kind: 'file', path: segments.join('/'), immutable: inAssets };
  }
  // A hashed file that is not there is a stale or mistyped asset: the app in its place would be
  // parsed as script or style. Anything else is a page of the app (`/admin/users/123`).
  return inAssets ? { kind: 'missing' } : { kind: 'app' };
}

const notBuilt = () =>
  new AppError(503, 'unavailable', {
    reason: 'console_not_built',
    message:
      'The staff console is not built: run `npm run build` (it writes console/dist, or set CONSOLE_DIR) and restart.',
  });

/**
 * The staff console at /admin: the built single-page app of `CONSOLE_DIR`, from this service's
 * own origin. Not API: kept out of the OpenAPI document, open, GET only, so no maintenance level
 * refuses it and no rate limit counts it (request-pipeline.ts decides both by the matched route).
 */
export function registerConsoleFiles(app: ZodApp, deps: Deps<'config'>): void {
  const root = resolve(deps.config.consoleDir);
  // Only reply.sendFile (@fastify/send: ETag, Last-Modified, 304, ranges); the routes below choose the file.
  // preCompressed: the file's .br or .gz copy when Accept-Encoding takes it (with Content-Encoding),
  // else the file itself; every answer says `Vary: Accept-Encoding` for caches between.
  // Without the directory (a clone not yet built, the tests) the plugin would log a warning at every
  // start; nothing can be sent from it then anyway, so /admin answers 503 until a build and a restart.
  const built = existsSync(root);
  if (built) app.register(fastifyStatic, { serve: false, root, preCompressed: true });

  const secure = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    reply.headers({
      'content-security-policy': consoleContentPolicy(deps.config, request),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    done();
  };
  const sendOptions = { cacheControl: false, dotfiles: 'deny', index: false, acceptRanges: true } as const;

  const answer = (rest: string, reply: FastifyReply) => {
    const target = consoleTarget(root, rest);
    if (target.kind === 'missing') throw notFound();
    if (target.kind === 'file') {
      reply.header('cache-control', target.immutable ? IMMUTABLE : REVALIDATE);
      return reply.sendFile(target.path, root, sendOptions);
    }
    if (!built || !fileInside(root, join(root, 'index.html'))) throw notBuilt();
    reply.header('cache-control', REVALIDATE);
    return reply.sendFile('index.html', root, sendOptions);
  };

  const options = { schema: { hide: true }, onRequest: secure } as const;
  app.get('/admin', options, (_request, reply) => answer('', reply));
  app.get('/admin/*', options, (request, reply) => answer((request.params as { '*': string })['*'], reply));
}
