import type { Kysely } from 'kysely';
import { randomBytes } from 'node:crypto';
import type { Tables } from '../db/tables.js';

/** A secret the service made for itself, the same for every instance: made by whichever asks first. */
export async function storedServiceSecret(db: Kysely<Tables>, name: string): Promise<string> {
  await db
    .insertInto('service_secrets')
    .values({ name, secret: randomBytes(48).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('service_secrets')
    .select('secret')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.secret;
}
