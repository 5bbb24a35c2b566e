import type { Readable } from 'node:stream';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { LOCAL_DOWNLOAD_PATH, LOCAL_UPLOAD_PATH, LocalStorage } from '../../adapters/storage/local.js';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { LocalTransfers } from './local-transfers.js';
import {
  confirmMyAvatar,
  createMyAvatarUploadUrl,
  deleteStorageObject,
  downloadStorageObject,
  listStorageObjects,
  previewStorageObject,
  uploadStorageObject,
} from './route-options.js';
import { FilesService } from './service.js';

/**
 * The player's avatar (signed upload, then confirmation), staff browsing of the object store,
 * and, with the local store, the upload and download URLs it hands out.
 */
export function registerStorageRoutes(app: ZodApp, deps: Deps<'db' | 'log' | 'storage' | 'write'>): void {
  const files = new FilesService(deps.db, deps.write, deps.storage, deps.log);

  app.post('/v1/me/avatar/upload-url', createMyAvatarUploadUrl, (request) =>
    files.issueAvatarUpload(actorOf(request).userId, request.body),
  );
  app.post('/v1/me/avatar/confirm', confirmMyAvatar, (request) =>
    files.confirmAvatar(actorOf(request).userId, request.body.key),
  );
  app.get('/v1/admin/storage/objects', listStorageObjects, (request) => files.list(request.query));
  app.get('/v1/admin/storage/objects/preview', previewStorageObject, (request) => files.preview(request.query.key));
  app.delete('/v1/admin/storage/objects', deleteStorageObject, async (request, reply) => {
    await files.delete(actorOf(request), request.query.key);
    return reply.code(204).send(null);
  });

  if (deps.storage instanceof LocalStorage) registerLocalTransferRoutes(app, new LocalTransfers(deps.storage));
}

/** The local store's URLs: no bearer token, the signed query string is the permission. */
function registerLocalTransferRoutes(app: ZodApp, transfers: LocalTransfers): void {
  // The body is the object's bytes, streamed to disk with a limit: this scope alone takes any type, unparsed.
  void app.register(async (plain) => {
    plain.removeAllContentTypeParsers();
    plain.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    scope.put(LOCAL_UPLOAD_PATH, uploadStorageObject, async (request, reply) => {
      const length = request.headers['content-length'];
      await transfers.upload(
        request.query,
        request.headers['content-type'],
        length === undefined ? undefined : Number(length),
        request.body as Readable | undefined,
      );
      return reply.code(204).send(null);
    });
  });

  app.get(LOCAL_DOWNLOAD_PATH, downloadStorageObject, async (request, reply) => {
    const { stream, object, maxAgeSeconds } = await transfers.download(request.query);
    return (
      reply
        .type(object.contentType ?? 'application/octet-stream')
        .header('content-length', object.size)
        .header('cache-control', `private, max-age=${maxAgeSeconds}`)
        // Players' files served from the API's origin: never sniffed into HTML, never run as a page.
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        // Anything but an image is saved, not shown in the browser.
        .header('content-disposition', object.contentType?.startsWith('image/') === true ? 'inline' : 'attachment')
        .send(stream)
    );
  });
}
