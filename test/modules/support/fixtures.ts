import { expect } from 'vitest';
import type { TestApp, TestUser } from '../../helpers/app.js';
import { putBytes, type Grant } from '../../helpers/uploads.js';

/** An upload URL for a support attachment, as the player's client asks for it. */
export async function requestAttachmentUpload(
  t: TestApp,
  user: TestUser,
  contentType: string,
  size: number,
): Promise<Grant> {
  const response = await t.request({
    method: 'POST',
    url: '/v1/me/support/attachments/upload-url',
    token: user.token,
    payload: { content_type: contentType, size },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** Upload-url, then PUT: the key a message may name. */
export async function uploadAttachment(
  t: TestApp,
  user: TestUser,
  contentType: string,
  bytes: Buffer,
): Promise<string> {
  const grant = await requestAttachmentUpload(t, user, contentType, bytes.length);
  const put = await putBytes(t, grant.upload_url, bytes, grant.headers);
  expect(put.statusCode, put.body).toBe(204);
  return grant.key;
}

/** What a message shows of an attachment: the URL is a signed download of this service. */
export const attachmentView = (key: string, contentType: string, size: number) => ({
  key,
  content_type: contentType,
  size,
  url: expect.stringContaining(`/v1/public/storage/download?key=${encodeURIComponent(key)}`),
});
