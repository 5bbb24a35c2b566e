import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp, type TestAppOptions, type TestUser } from './app.js';

/** An app whose local object store lives in a temporary directory of its own. */
export async function startStorageApp(options: TestAppOptions = {}): Promise<TestApp & { storageDir: string }> {
  const storageDir = mkdtempSync(join(tmpdir(), 'pa-storage-'));
  const t = await startTestApp({ ...options, config: { storageDir, ...options.config } });
  return {
    ...t,
    storageDir,
    async close() {
      await t.close();
      rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

export interface Grant {
  upload_url: string;
  method: 'PUT';
  headers: Record<string, string>;
  key: string;
  max_size: number;
  expires_at: string;
}

/** The path and query of a URL this service handed out (inject takes paths; the origin is PUBLIC_BASE_URL). */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  if (parsed.origin !== 'http://platform.test') throw new Error(`not a URL of this service: ${url}`);
  return `${parsed.pathname}${parsed.search}`;
}

/** Replaces one query parameter of a signed URL (to tamper with it). */
export function withParam(url: string, name: string, value: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(name, value);
  return parsed.toString();
}

export async function requestUpload(t: TestApp, user: TestUser, contentType: string, size: number): Promise<Grant> {
  const response = await t.request({
    method: 'POST',
    url: '/v1/me/avatar/upload-url',
    token: user.token,
    payload: { content_type: contentType, size },
  });
  if (response.statusCode !== 200) throw new Error(`upload-url answered ${response.statusCode}: ${response.body}`);
  return response.json();
}

export function putBytes(
  t: TestApp,
  url: string,
  bytes: InjectOptions['payload'],
  headers: Record<string, string>,
): Promise<LightMyRequestResponse> {
  return t.request({ method: 'PUT', url: pathOf(url), payload: bytes, headers });
}

export function confirm(t: TestApp, user: TestUser, key: string): Promise<LightMyRequestResponse> {
  return t.request({ method: 'POST', url: '/v1/me/avatar/confirm', token: user.token, payload: { key } });
}

/** Upload-url, PUT, confirm: the avatar it set. */
export async function setAvatar(
  t: TestApp,
  user: TestUser,
  contentType: string,
  bytes: Buffer,
): Promise<{ key: string; avatarUrl: string }> {
  const grant = await requestUpload(t, user, contentType, bytes.length);
  const put = await putBytes(t, grant.upload_url, bytes, grant.headers);
  if (put.statusCode !== 204) throw new Error(`upload answered ${put.statusCode}: ${put.body}`);
  const confirmed = await confirm(t, user, grant.key);
  if (confirmed.statusCode !== 200) throw new Error(`confirm answered ${confirmed.statusCode}: ${confirmed.body}`);
  return { key: grant.key, avatarUrl: confirmed.json().avatar_url };
}
