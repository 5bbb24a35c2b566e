import { z } from 'zod';

/** Ids are PostgreSQL `integer`s: anything past this could never exist (and would be a 500). */
export const INT4_MAX = 2_147_483_647;
export const storeId = z.coerce.number().int().min(1).max(INT4_MAX);
export const idParams = z.object({ id: storeId });
