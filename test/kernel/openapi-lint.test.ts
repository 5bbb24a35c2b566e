import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const ROOT = join(import.meta.dirname, '../..');

describe("Redocly's recommended rules (redocly.yaml)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('find nothing in the served document: 0 errors, 0 warnings', async () => {
    const source = (await t.request({ method: 'GET', url: '/openapi.json' })).body;
    const config = await loadConfig({ configPath: join(ROOT, 'redocly.yaml') });
    // The ignore file's entries (each with its reason) are keyed by the committed file's path.
    const problems = await lintFromString({ source, absoluteRef: join(ROOT, 'openapi.json'), config });
    const found = problems
      .filter((problem) => !problem.ignored)
      .map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} ${problem.location[0]?.pointer}`);
    expect(found).toEqual([]);
  }, 60_000);
});
