import { z } from 'zod';

/** Answers that writes in many areas share, named once in the OpenAPI document. */

export const idResult = z
  .object({ id: z.guid() })
  .meta({ id: 'IdResult', description: 'The id of what was made or stored.' });

export const versionResult = z
  .object({ version: z.number().int() })
  .meta({ id: 'VersionResult', description: 'The version stored, published or made live again.' });
