import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../kernel/pagination.js';
import { emailAddress } from '../email/audiences/index.js';

export const joinWaitlistBody = z
  .object({
    email: emailAddress,
    source: z.string().trim().min(1).max(100).optional().describe('Where the form was, e.g. `landing-hero`.'),
    referrer: z.string().trim().min(1).max(500).optional().describe('Who sent the person (a URL or a referral code).'),
  })
  .strict();
export type JoinWaitlistInput = z.infer<typeof joinWaitlistBody>;

export const joinWaitlistResult = z
  .object({ ok: z.literal(true) })
  .describe('Accepted, whether the address is new or already on the list.');

export const waitlistSignupView = z.object({
  email: z.string(),
  source: z.string().nullable(),
  referrer: z.string().nullable(),
  ip: z.string().nullable(),
  created_at: z.date(),
});
export type WaitlistSignupView = z.infer<typeof waitlistSignupView>;
export const waitlistPage = pagedResponse(waitlistSignupView);

export const listWaitlistQuery = pageQuery(['created_at', 'email'], { field: 'created_at', direction: 'desc' }).extend({
  source: z.string().min(1).max(100).optional().describe('Only signups from this source (exact).'),
});
export type ListWaitlistQuery = z.infer<typeof listWaitlistQuery>;
