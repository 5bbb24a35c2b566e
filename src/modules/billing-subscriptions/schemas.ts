import { z } from 'zod';

/** Operation 21 body (camelCase like the rest of the plans group). */
export const migrateSubscribersBody = z.object({
  fromProductId: z.string().uuid(),
  toProductId: z.string().uuid(),
  newProviderPriceId: z.string().min(1),
  confirm: z.boolean(),
});

export const migrateSubscribersResult = z.object({ migrated: z.number().int(), failed: z.number().int(), total: z.number().int() });
