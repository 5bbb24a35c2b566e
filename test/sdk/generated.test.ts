import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedSdkSources, sdkSources } from '../../scripts/sdk-sources.js';

const DOCUMENT = join(import.meta.dirname, '../../openapi.json');

describe("the SDK's generated sources", () => {
  it('sdk/src/schema.d.ts, operations.ts and request-fields.ts are what openapi.json generates (run `npm run openapi`)', async () => {
    const fresh = await sdkSources(JSON.parse(readFileSync(DOCUMENT, 'utf8')));
    const committed = committedSdkSources();
    // Compared file by file, as text: a failure names the stale file, not a 1 MB diff.
    for (const name of Object.keys(fresh) as Array<keyof typeof fresh>) {
      expect(committed[name] === fresh[name], `sdk/src ${name} is stale: run \`npm run openapi\``).toBe(true);
    }
  });
});
