import { z } from 'zod';
import { MAX_KEY_LENGTH, MAX_LIST_OFFSET, PREFIX_PATTERN } from '../../adapters/storage/index.js';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../../kernel/pagination.js';
import { AVATAR_CONTENT_TYPES } from './tables.js';

/** The largest avatar: 2 MiB. */
export const MAX_AVATAR_BYTES = 2 * 1024 * 1024;

export const avatarUploadBody = z
  .object({
    content_type: z
      .enum(AVATAR_CONTENT_TYPES)
      .describe("The image type the client will upload; the confirmation checks the file's magic bytes against it."),
    size: z
      .number()
      .int()
      .min(1)
      .max(MAX_AVATAR_BYTES)
      .describe(
        'The file size in bytes (at most 2 MiB). The local store refuses a larger body; S3 requires exactly this ' +
          'many bytes.',
      ),
  })
  .strict();
export type AvatarUploadInput = z.infer<typeof avatarUploadBody>;

export const avatarUploadGrant = z
  .object({
    upload_url: z.string().describe('Where to PUT the bytes: valid for this key, content type and size only.'),
    method: z.literal('PUT'),
    headers: z
      .record(z.string(), z.string())
      .describe('Headers the upload must carry exactly (the signature covers them).'),
    key: z.string().describe('The object key to pass to the confirmation.'),
    max_size: z.number().int().describe('The declared size: the most bytes the upload may carry.'),
    expires_at: z.date().describe('The URL and the upload intent expire together, 10 minutes after issue.'),
  })
  .meta({ id: 'UploadGrant', description: 'A presigned upload: where and how to PUT the bytes, and until when.' });

export const avatarConfirmBody = z
  .object({
    key: z.string().min(1).max(MAX_KEY_LENGTH).describe('The `key` of `POST /v1/me/avatar/upload-url`.'),
  })
  .strict();

export const avatarConfirmed = z
  .object({
    avatar_url: z
      .string()
      .describe(
        'A signed download URL of the new avatar, valid for at least an hour (the same URL within each hour, so ' +
          'caches keep it).',
      ),
  })
  .describe("The new avatar's public URL.");

export const listObjectsQuery = z.object({
  prefix: z
    .string()
    .max(MAX_KEY_LENGTH)
    .regex(PREFIX_PATTERN, 'letters, digits, `.`, `_`, `-` and `/` only')
    .default('')
    .describe('Only keys starting with this (e.g. `avatars/<user id>/`).'),
  limit: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_LIST_OFFSET)
    .default(0)
    .describe(
      `Keys to skip (at most ${MAX_LIST_OFFSET}: S3 lists have no offset, each page walks the keys before it).`,
    ),
});
export type ListObjectsQuery = z.infer<typeof listObjectsQuery>;

export const storedObjectView = z.object({
  key: z.string(),
  size: z.number().int(),
  content_type: z
    .string()
    .optional()
    .describe("When the store knows it cheaply: the local store (from the key's extension); S3 lists carry none."),
  last_modified: z.date(),
});
export type StoredObjectView = z.infer<typeof storedObjectView>;

export const objectsPage = z
  .object({
    data: z.array(storedObjectView),
    meta: z.object({ prefix: z.string(), limit: z.number().int(), offset: z.number().int() }),
  })
  .describe('One page of the stored objects under `meta.prefix`.');

export const objectKeyQuery = z.object({
  key: z.string().min(1).max(MAX_KEY_LENGTH).describe('The object key (it may contain `/`).'),
});

export const objectPreview = z
  .object({
    key: z.string(),
    size: z.number().int(),
    kind: z.enum(['image', 'text']),
    content_type: z.string().describe('What the bytes are: `image/png`, `image/jpeg`, `image/webp` or `text/plain`.'),
    truncated: z.boolean().describe('A text longer than the preview: `content` is its start.'),
    content: z.string().describe('An image: its bytes in base64. A text: its first 64 KiB, as text.'),
  })
  .describe('An object shown to staff: an image whole, or the start of a text.');
export type ObjectPreview = z.infer<typeof objectPreview>;

/** The local store's signed upload URL, as `LocalStorage.presignUpload` writes it. */
export const localUploadQuery = z.object({
  key: z.string().max(MAX_KEY_LENGTH),
  type: z.string().max(100),
  // The largest upload this service grants; a signed URL for more cannot exist.
  size: z.coerce.number().int().min(1).max(MAX_AVATAR_BYTES),
  expires: z.coerce.number().int().min(0),
  sig: z.string().max(100),
});
export type LocalUploadQuery = z.infer<typeof localUploadQuery>;

export const localDownloadQuery = z.object({
  key: z.string().max(MAX_KEY_LENGTH),
  expires: z.coerce.number().int().min(0),
  sig: z.string().max(100),
});
export type LocalDownloadQuery = z.infer<typeof localDownloadQuery>;

const errorBody = z.object({ error: z.string(), details: z.unknown().optional() });
export const transferRefusal = (what: string) => errorBody.describe(what);
