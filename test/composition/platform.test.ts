import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partsOf } from '../../src/composition/platform.js';
import { AREAS } from '../../src/modules/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('the parts of the platform an area is given', () => {
  it('are the ones it named and no others', () => {
    const deps = partsOf(t.kernel, ['db', 'write']);
    expect(Object.keys(deps)).toEqual(['db', 'write']);
    expect(deps.db).toBe(t.kernel.db);
    expect('payments' in deps).toBe(false);
    expect((deps as Record<string, unknown>).config).toBeUndefined();
  });

  it('are read through, so a part made at start (the runtime client) is the started one', () => {
    const deps = partsOf(t.kernel, ['runtime', 'signingKey']);
    expect(deps.runtime).toBe(t.kernel.runtime);
    expect(deps.signingKey).toBe(t.kernel.signingKey);
  });

  it('refuse a name the platform does not have', () => {
    expect(() => partsOf(t.kernel, ['nothing' as 'db'])).toThrow('no part "nothing" in the platform');
  });

  it('every area names parts the platform has, each once', () => {
    for (const area of AREAS) {
      expect(new Set(area.needs).size, area.name).toBe(area.needs.length);
      for (const part of area.needs) expect(part in t.kernel, `${area.name} needs ${part}`).toBe(true);
    }
  });
});
