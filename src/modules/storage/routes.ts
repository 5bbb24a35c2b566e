import type { Readable } from 'node:stream';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LOCAL_DOWNLOAD_PATH, LOCAL_UPLOAD_PATH, LocalStorage } from '../../adapters/storage/local.js';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { AvatarService } from './avatars.js';
import { StorageBrowser } from './browser.js';
import { LocalTransfers } from './local-transfers.js';
import {
  avatarConfirmBody,
  avatarConfirmed,
  avatarUploadBody,
  avatarUploadGrant,
  localDownloadQuery,
  localUploadQuery,
  objectKeyQuery,
  objectPreview,
  objectsPage,
  listObjectsQuery,
  transferRefusal,
} from './schemas.js';

const meTags = ['me: avatar'];
const staffTags = ['storage'];
const publicTags = ['storage (local store)'];

/**
 * The player's avatar (signed upload, then confirmation), staff browsing of the object store,
 * and, with the local store, the upload and download URLs it hands out.
 */
export function registerStorageRoutes(app: ZodApp, deps: Deps<'db' | 'log' | 'storage' | 'write'>): void {
  const avatars = new AvatarService(deps.db, deps.write, deps.storage, deps.log);
  const browser = new StorageBrowser(deps.write, deps.storage);

  app.post(
    '/v1/me/avatar/upload-url',
    {
      config: { rateLimit: 'avatarUpload' },
      schema: {
        operationId: 'createMyAvatarUploadUrl',
        tags: meTags,
        summary: 'Get an avatar upload URL',
        description:
          'A URL to PUT one image to, valid 10 minutes, for one new key under the caller (`avatars/<user ' +
          'id>/<random>.<ext>`), the declared `content_type` (PNG, JPEG or WebP) and `size` (at most 2 MiB). Send ' +
          "the `headers` given. With the local store the URL is this service's `PUT /v1/public/storage/upload` (a " +
          'larger body is 413); with S3 it is a presigned PUT that S3 accepts only with exactly that content type ' +
          'and length. Then call `POST /v1/me/avatar/confirm` with the `key`. Errors: 400 SchemaError; 429 ' +
          '`rate_limited` past 20 per hour per user; 503 `unavailable` (the store cannot be reached).',
        body: avatarUploadBody,
        response: { 200: avatarUploadGrant },
      },
    },
    (request) => avatars.issueUpload(actorOf(request).userId, request.body),
  );

  app.post(
    '/v1/me/avatar/confirm',
    {
      config: { errors: { 404: ['not_found'], 422: ['invalid_request'] } },
      schema: {
        operationId: 'confirmMyAvatar',
        tags: meTags,
        summary: 'Make the uploaded image the avatar',
        description:
          "Checks the object uploaded to `key` and makes it the caller's avatar; the previous avatar's object is " +
          'deleted. Answers a signed download URL (`avatar_url`; `GET /v1/me` shows it too). Confirming the ' +
          'current avatar again answers the same. Errors: 404 `not_found` (a key not issued to the caller, ' +
          'whoever it belongs to); 422 `invalid_request` with `details.reason`: `upload_expired` (the 10 minutes ' +
          'have passed), `object_missing` (nothing was uploaded), `too_large` (`details.size`, ' +
          '`details.max_size`), `not_an_image` (the first bytes are no PNG, JPEG or WebP signature), ' +
          '`type_mismatch` (`details.expected`, `details.detected`), `already_used` (the key was an avatar since ' +
          'replaced); 503 `unavailable`. A refusal changes nothing.',
        body: avatarConfirmBody,
        response: { 200: avatarConfirmed },
      },
    },
    (request) => avatars.confirm(actorOf(request).userId, request.body.key),
  );

  app.get(
    '/v1/admin/storage/objects',
    {
      config: { perms: ['storage.read'] },
      schema: {
        operationId: 'listStorageObjects',
        tags: staffTags,
        summary: 'Browse stored objects',
        description:
          'Objects whose key starts with `prefix`, in key order, paged with `limit` (default 25, at most 100) and ' +
          '`offset`; `meta` echoes them (no total: stores do not count). A page shorter than `limit` is the last. ' +
          'Errors: 503 `unavailable`.',
        querystring: listObjectsQuery,
        response: { 200: objectsPage },
      },
    },
    (request) => browser.list(request.query),
  );

  app.get(
    '/v1/admin/storage/objects/preview',
    {
      config: { perms: ['storage.read'], errors: { 404: ['not_found'], 422: ['invalid_request'] } },
      schema: {
        operationId: 'previewStorageObject',
        tags: staffTags,
        summary: 'Preview a stored object',
        description:
          'The object `key` (a query parameter) as staff see it before deleting it: a PNG, JPEG or WebP image (told ' +
          'by its first bytes) whole in base64, up to 2 MiB; or the first 64 KiB of UTF-8 text. The bytes come in ' +
          'the answer, never as a signed URL. Errors: 404 `not_found`; 422 `invalid_request` with ' +
          '`details.reason` `not_previewable` (neither such an image nor text) or `too_large` (`details.size`, ' +
          '`details.max_size`); 503 `unavailable`.',
        querystring: objectKeyQuery,
        response: { 200: objectPreview },
      },
    },
    (request) => browser.preview(request.query.key),
  );

  app.delete(
    '/v1/admin/storage/objects',
    {
      config: { perms: ['storage.write'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'deleteStorageObject',
        tags: staffTags,
        summary: 'Delete a stored object',
        description:
          'Deletes the object `key` (a query parameter: keys contain `/`). A user whose avatar it is loses the ' +
          'avatar in the same transaction. Audited (`storage.object.delete`, with the users whose avatar was ' +
          'cleared). Errors: 404 `not_found`; 503 `unavailable`.',
        querystring: objectKeyQuery,
        response: { 204: z.null().describe('Deleted') },
      },
    },
    async (request, reply) => {
      await browser.delete(actorOf(request), request.query.key);
      return reply.code(204).send(null);
    },
  );

  if (deps.storage instanceof LocalStorage) registerLocalTransferRoutes(app, new LocalTransfers(deps.storage));
}

/** The local store's URLs: no bearer token, the signed query string is the permission. */
function registerLocalTransferRoutes(app: ZodApp, transfers: LocalTransfers): void {
  // The body is the object's bytes, streamed to disk with a limit: this scope alone takes any type, unparsed.
  void app.register(async (plain) => {
    plain.removeAllContentTypeParsers();
    plain.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    scope.put(
      LOCAL_UPLOAD_PATH,
      {
        schema: {
          tags: publicTags,
          operationId: 'uploadStorageObject',
          summary: 'Upload to a signed URL (local store)',
          description:
            'The `upload_url` of `POST /v1/me/avatar/upload-url` when objects are stored locally: the body is the ' +
            'file, with the signed `Content-Type`. Written atomically (a reader sees the old object or the new ' +
            'one). Errors: 404 `invalid_signature` (any part of the URL altered, or not signed by this service); ' +
            '410 `url_expired`; 413 `payload_too_large` (more bytes than signed; `details.max`; nothing is ' +
            'stored); 415 `unsupported_media_type` (another content type; `details.expected`).',
          querystring: localUploadQuery,
          response: {
            204: z.null().describe('Stored'),
            404: transferRefusal('`invalid_signature`.'),
            410: transferRefusal('`url_expired`.'),
            413: transferRefusal('`payload_too_large`.'),
            415: transferRefusal('`unsupported_media_type`.'),
          },
        },
      },
      async (request, reply) => {
        const length = request.headers['content-length'];
        await transfers.upload(
          request.query,
          request.headers['content-type'],
          length === undefined ? undefined : Number(length),
          request.body as Readable | undefined,
        );
        return reply.code(204).send(null);
      },
    );
  });

  app.get(
    LOCAL_DOWNLOAD_PATH,
    {
      // The object's bytes stream from disk with their length; images are compressed already.
      compress: false,
      schema: {
        tags: publicTags,
        operationId: 'downloadStorageObject',
        summary: 'Download from a signed URL (local store)',
        description:
          "The object's bytes, for `avatar_url` and other download URLs of the local store. Errors: 404 " +
          '`invalid_signature` (altered or not signed here), `not_found` (deleted since); 410 `url_expired`.',
        querystring: localDownloadQuery,
        response: {
          200: z.unknown().describe("The object's bytes, with its content type."),
          404: transferRefusal('`invalid_signature` or `not_found`.'),
          410: transferRefusal('`url_expired`.'),
        },
      },
    },
    async (request, reply) => {
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
    },
  );
}
