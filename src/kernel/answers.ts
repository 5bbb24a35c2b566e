import { z } from 'zod';

/** Answers that writes in many areas share, named once in the OpenAPI document. */

export const idResult = z.object({ id: z.guid() }).meta({
  id: 'IdResult',
  description: 'The id of what was made or stored.',
  examples: [{ id: '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f' }],
});

export const versionResult = z.object({ version: z.number().int() }).meta({
  id: 'VersionResult',
  description: 'The version stored, published or made live again.',
  examples: [{ version: 4 }],
});
