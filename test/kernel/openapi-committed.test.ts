import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const COMMITTED = join(import.meta.dirname, '../../openapi.json');

describe('the committed contract', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('openapi.json is the document the service serves (run `npm run openapi` after changing a route)', async () => {
    const served = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const text = `${JSON.stringify(served, null, 2)}\n`;
    // Compared as text so the failure names the first differing line, not a 2 MB object diff.
    const committed = readFileSync(COMMITTED, 'utf8');
    if (text !== committed) {
      const servedLines = text.split('\n');
      const committedLines = committed.split('\n');
      const line = servedLines.findIndex((value, index) => value !== committedLines[index]);
      expect.fail(
        `openapi.json differs from the served document at line ${line + 1}:\n` +
          `  committed: ${committedLines[line]}\n  served:    ${servedLines[line]}\n` +
          'Run `npm run openapi` and commit openapi.json.',
      );
    }
  });

  it('lists its component schemas by name, whatever order the modules were imported in', async () => {
    // A module imported early (as another test file in the same worker does) registers its schemas first.
    await import('../../src/modules/billing/catalog/schemas.js');
    const served = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const names = Object.keys(served.components.schemas);
    expect(names).toEqual([...names].sort());
  });
});
