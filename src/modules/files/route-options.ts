// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import {
  avatarConfirmBody,
  avatarConfirmed,
  avatarUploadBody,
  avatarUploadGrant,
  listObjectsQuery,
  localDownloadQuery,
  localUploadQuery,
  objectKeyQuery,
  objectPreview,
  objectsPage,
  transferRefusal,
} from './schemas.js';

const meTags = ['me: avatar'];
const staffTags = ['storage'];
const publicTags = ['storage (local store)'];

export const createMyAvatarUploadUrl = {
  config: { rateLimit: 'avatarUpload' },
  schema: {
    operationId: 'createMyAvatarUploadUrl',
    tags: meTags,
    summary: 'Get an avatar upload URL',
    description:
      'A URL to PUT one image to (PNG, JPEG or WebP, at most 2 MiB), valid 10 minutes, with the `headers` to ' +
      'send. Then call `POST /v1/me/avatar/confirm` with the `key`. In depth: ' +
      '[docs/api/account.md](docs/api/account.md#get-an-avatar-upload-url).',
    body: avatarUploadBody,
    response: { 200: avatarUploadGrant },
  },
} as const;

export const confirmMyAvatar = {
  config: { errors: { 404: ['not_found'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'confirmMyAvatar',
    tags: meTags,
    summary: 'Make the uploaded image the avatar',
    description:
      "Checks the object uploaded to `key` and makes it the caller's avatar, deleting the previous one; " +
      'answers a signed `avatar_url`. 404 `not_found` for a key not issued to the caller. In depth: ' +
      '[docs/api/account.md](docs/api/account.md#make-the-uploaded-image-the-avatar).',
    body: avatarConfirmBody,
    response: { 200: avatarConfirmed },
  },
} as const;

export const listStorageObjects = {
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
} as const;

export const previewStorageObject = {
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
} as const;

export const deleteStorageObject = {
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
} as const;

export const uploadStorageObject = {
  schema: {
    tags: publicTags,
    operationId: 'uploadStorageObject',
    summary: 'Upload to a signed URL (local store)',
    description:
      'The `upload_url` of an upload grant when objects are stored locally: the body is the file, with the ' +
      'signed `Content-Type`. Written atomically. In depth: ' +
      '[docs/api/account.md](docs/api/account.md#upload-to-a-signed-url-local-store).',
    querystring: localUploadQuery,
    response: {
      204: z.null().describe('Stored'),
      404: transferRefusal('`invalid_signature`.'),
      410: transferRefusal('`url_expired`.'),
      413: transferRefusal('`payload_too_large`.'),
      415: transferRefusal('`unsupported_media_type`.'),
    },
  },
} as const;

export const downloadStorageObject = {
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
} as const;
