import { z } from 'zod';

export const profileBody = z.object({
  id: z.string().uuid(),
  email: z.string().nullable(),
  display_name: z.string().nullable(),
  provider: z.string().nullable(),
  status: z.enum(['active', 'banned', 'deleted']),
  created_at: z.date(),
  last_seen_at: z.date().nullable(),
});

export const permissionsBody = z.object({
  permissions: z.array(z.string()).describe('Effective permission keys, wildcards expanded, sorted.'),
  roles: z.array(z.object({ key: z.string(), name: z.string(), expires_at: z.date().nullable() })),
});
