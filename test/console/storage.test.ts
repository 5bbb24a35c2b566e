import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_BYTES } from '../helpers/images.js';
import { S3_TEST_CREDENTIALS, type S3TestServer, startS3Server } from '../helpers/s3-server.js';
import {
  type ConsoleService,
  pageProblems,
  screenshotBothSizes,
  seriousViolations,
  signInWithToken,
  startConsoleService,
} from './harness.js';

/**
 * The console's Storage screen in Chromium, as the demo operations staff member, against the real
 * service configured for S3 with the S3 peer the storage tests use (s3rver on loopback): browse to
 * an object by its folders, preview an image and a text, delete them, and read back through the
 * API that they are gone.
 */

const SLOW = 180_000;
const TEXT = 'Crash report 42\nthe match server ran out of memory <script>alert(1)</script>\n';

describe('the staff console: Storage', () => {
  let s3: S3TestServer;
  let service: ConsoleService;
  let opsToken: string;
  let page: Page;
  const objects: Record<string, Buffer> = {
    'reports/2026/11/crash-42.txt': Buffer.from(TEXT),
    'reports/2026/11/map.png': IMAGE_BYTES['image/png'],
    'reports/2026/10/old.txt': Buffer.from('older'),
    'reports/readme.txt': Buffer.from('what lives here'),
    'zz/binary.bin': Buffer.from([0, 1, 2, 3, 250]),
  };

  beforeAll(async () => {
    s3 = await startS3Server('console-storage');
    service = await startConsoleService({
      config: {
        storageS3Bucket: s3.bucket,
        storageS3Endpoint: s3.endpoint,
        storageS3AccessKeyId: S3_TEST_CREDENTIALS.accessKeyId,
        storageS3SecretAccessKey: S3_TEST_CREDENTIALS.secretAccessKey,
      },
    });
    for (const [key, bytes] of Object.entries(objects)) {
      const grant = await service.t.kernel.storage.presignUpload({
        key,
        contentType: 'application/octet-stream',
        size: bytes.length,
        expiresAt: new Date(Date.now() + 60_000),
      });
      const put = await fetch(grant.url, { method: grant.method, headers: grant.headers, body: bytes });
      expect(put.status).toBe(200);
    }
    opsToken = await service.tokenFor('demo-operations');
    ({ page } = await service.window());
    await signInWithToken(page, service.origin, opsToken, '/admin/storage');
  }, SLOW);
  afterAll(async () => {
    await service?.close();
    await s3?.close();
  });

  const keysUnder = async (prefix: string) => {
    const answer = await service.t.request({
      method: 'GET',
      url: `/v1/admin/storage/objects?prefix=${encodeURIComponent(prefix)}&limit=100`,
      token: opsToken,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    return (answer.json() as { data: Array<{ key: string }> }).data.map((object) => object.key);
  };
  const checkPage = async (name: string) => {
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, name);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
  };

  it(
    'browses to an object by its folders, previews an image and a text, and deletes them',
    async () => {
      await page.getByRole('heading', { name: 'Storage', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'reports/' }).click();
      await page.getByRole('link', { name: '2026/' }).click();
      await page.getByRole('link', { name: '11/' }).click();
      const crumbs = page.getByRole('navigation', { name: 'Folder' });
      await crumbs.getByText('11').waitFor();
      await crumbs.getByRole('link', { name: '2026' }).waitFor();
      const table = page.getByRole('grid', { name: 'Objects under reports/2026/11/' });
      await table.getByRole('row').filter({ hasText: 'crash-42.txt' }).waitFor();
      expect(await table.getByRole('row').count()).toBe(3);
      await checkPage('storage-objects');

      // The image, from its bytes through the API (no signed URL reaches the page).
      await table.getByRole('button', { name: 'Preview map.png' }).click();
      const dialog = page.getByRole('dialog');
      const image = dialog.getByRole('img', { name: 'Preview of reports/2026/11/map.png' });
      await image.waitFor();
      expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
      await checkPage('storage-preview-image');
      await dialog.getByRole('button', { name: 'Close' }).click();

      // The text, as text: its markup is not run.
      await table.getByRole('button', { name: 'Preview crash-42.txt' }).click();
      await dialog.getByText('the match server ran out of memory <script>alert(1)</script>').waitFor();
      await dialog.getByText(/text\/plain/).waitFor();
      await checkPage('storage-preview-text');
      await dialog.getByRole('button', { name: 'Close' }).click();

      // Delete one, named in the confirmation.
      await table.getByRole('row').filter({ hasText: 'crash-42.txt' }).getByRole('button', { name: 'Delete…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByRole('heading', { name: 'Delete reports/2026/11/crash-42.txt?' }).waitFor();
      await confirm.getByText(/gone from the store for good/).waitFor();
      await checkPage('storage-delete');
      await confirm.getByRole('button', { name: 'Delete object' }).click();
      await page.getByText('Deleted reports/2026/11/crash-42.txt').waitFor();
      await table.getByRole('row').filter({ hasText: 'crash-42.txt' }).waitFor({ state: 'detached' });
      expect(await keysUnder('reports/2026/11/')).toEqual(['reports/2026/11/map.png']);

      // Up by a breadcrumb, then several at once, each named.
      await crumbs.getByRole('link', { name: 'reports' }).click();
      const all = page.getByRole('grid', { name: 'Objects under reports/' });
      await all.getByRole('row').filter({ hasText: 'readme.txt' }).waitFor();
      for (const name of ['2026/10/old.txt', 'readme.txt'])
        await all.getByRole('row').filter({ hasText: name }).locator('label.checkbox').click();
      await page.getByRole('button', { name: 'Delete 2 selected…' }).click();
      await confirm.getByText('reports/2026/10/old.txt').waitFor();
      await confirm.getByText('reports/readme.txt').waitFor();
      await confirm.getByRole('button', { name: 'Delete 2 objects' }).click();
      await page.getByText('Deleted 2 objects').waitFor();
      expect(await keysUnder('reports/')).toEqual(['reports/2026/11/map.png']);
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );

  it(
    'says why an object has no preview, and finds keys by a typed prefix',
    async () => {
      await page.goto(`${service.origin}/admin/storage`);
      await page.getByLabel('Keys starting with').fill('zz/');
      await page.getByLabel('Keys starting with').press('Enter');
      const table = page.getByRole('grid', { name: 'Objects under zz/' });
      await table.getByRole('button', { name: 'Preview binary.bin' }).click();
      await page.getByRole('dialog').getByRole('alert').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
      await page.getByLabel('Keys starting with').fill('bad prefix!');
      await page.getByLabel('Keys starting with').press('Enter');
      await page.getByText('Letters, digits, ., _, - and / only').waitFor();
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );
});
