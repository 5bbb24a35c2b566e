import { z } from 'zod';

/** BCP 47 as players' apps send it: a language, then region/script/variant subtags. */
const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,4}$/;

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const profileBody = z
  .object({
    id: z.guid(),
    email: z.string().nullable(),
    display_name: z.string().nullable(),
    provider: z.string().nullable(),
    status: z.enum(['active', 'banned', 'deleted']),
    tier: z.string().nullable().describe("The plan tier the caller's subscription gives; null without one."),
    locale: z.string().nullable(),
    timezone: z.string().nullable(),
    avatar_url: z
      .string()
      .nullable()
      .describe(
        "A short-lived download URL of the caller's avatar (the same within an hour, valid at least an hour); null " +
          'without one.',
      ),
    marketing_opt_in: z
      .boolean()
      .describe(
        "Whether marketing mail reaches the caller's address: false once they unsubscribed (here or from a mail's " +
          'link), and for an account without an address.',
      ),
    created_at: z.date(),
    last_seen_at: z.date().nullable(),
    profile_updated_at: z.date().nullable(),
  })
  .meta({ id: 'Profile', description: "The caller's own profile." });
export type ProfileView = z.infer<typeof profileBody>;

export const updateProfileBody = z
  .object({
    display_name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .nullable()
      .optional()
      .describe('1 to 100 characters after trimming; null clears it.'),
    locale: z.string().max(35).regex(LOCALE, 'a BCP 47 language tag such as en, de-AT or pt-BR').nullable().optional(),
    timezone: z.string().max(64).refine(isTimeZone, 'an IANA time zone such as Europe/Berlin').nullable().optional(),
    marketing_opt_in: z
      .boolean()
      .optional()
      .describe(
        "false unsubscribes the caller's address from marketing mail; true subscribes it again (not after a " +
          'bounce or complaint).',
      ),
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), { error: 'change at least one field' });
export type UpdateProfileInput = z.infer<typeof updateProfileBody>;

export const permissionsBody = z
  .object({
    permissions: z.array(z.string()).describe('Effective permission keys, wildcards expanded, sorted.'),
    roles: z.array(z.object({ key: z.string(), name: z.string(), expires_at: z.date().nullable() })),
  })
  .describe("The caller's effective permissions and the roles they come from.");
