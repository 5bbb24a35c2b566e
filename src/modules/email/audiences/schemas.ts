import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';
import { emailAddress } from './email-address.js';

// Email routes write snake_case (the spec's campaign and member fields).

export const MAX_MEMBERS_PER_REQUEST = 50_000;
export const MAX_CSV_LENGTH = 5_000_000;

export const audienceIdParams = z.object({ id: z.guid() });
export const memberParams = z.object({ id: z.guid(), memberId: z.guid() });

const name = z.string().trim().min(1).max(200);
const description = z.string().max(500).nullable().optional().describe('Omitted or null: no description.');

export const createAudienceBody = z.object({ name, description }).strict();
export type CreateAudienceInput = z.infer<typeof createAudienceBody>;

/** PUT replaces both fields: an omitted description clears it. */
export const updateAudienceBody = z.object({ name, description }).strict();
export type UpdateAudienceInput = z.infer<typeof updateAudienceBody>;

export const audienceView = z
  .object({
    id: z.guid(),
    name: z.string(),
    description: z.string().nullable(),
    member_count: z.number().int().describe('Members on the list now (mailable or not).'),
    created_by: z.guid().nullable(),
    updated_by: z.guid().nullable(),
    created_at: z.date(),
    updated_at: z.date().describe('Changed by an edit and by every member change.'),
  })
  .meta({ id: 'EmailAudience', description: 'An email audience: who it selects and how many it holds.' });
export type AudienceView = z.infer<typeof audienceView>;
export const audiencesPage = pagedResponse(audienceView);

export const listAudiencesQuery = pageQuery(['created_at', 'updated_at', 'name'], {
  field: 'created_at',
  direction: 'desc',
});
export type ListAudiencesQuery = z.infer<typeof listAudiencesQuery>;

const booleanText = z.enum(['true', 'false']).transform((value) => value === 'true');

export const listMembersQuery = pageQuery(['email', 'created_at'], { field: 'email', direction: 'asc' }).extend({
  mailable: booleanText
    .optional()
    .describe('`true`: only members mail would go to now; `false`: only those it would not.'),
});
export type ListMembersQuery = z.infer<typeof listMembersQuery>;

export const memberView = z
  .object({
    id: z.guid(),
    email: z.string(),
    user_id: z
      .guid()
      .nullable()
      .describe(
        'The account behind the address: given as a `user_id` member, or the account with this address at import.',
      ),
    user_status: z.enum(['active', 'banned', 'deleted']).nullable(),
    suppression_reason: z
      .enum(['unsubscribed', 'bounced', 'complained', 'manual'])
      .nullable()
      .describe('Why the address gets no marketing mail; null: not suppressed.'),
    mailable: z
      .boolean()
      .describe(
        'Marketing mail would go to this member now: not suppressed, and not the address of a banned or deleted account.',
      ),
    created_at: z.date().describe('When the address joined the list (kept across replaces that keep it).'),
  })
  .meta({
    id: 'EmailAudienceMember',
    description: 'A member of an email audience, with whether mail can reach them now.',
  });
export type MemberView = z.infer<typeof memberView>;
export const membersPage = pagedResponse(memberView);

export const previewCountView = z
  .object({
    total: z.number().int().describe('Every member.'),
    mailable: z.number().int().describe('Members a campaign launched now would mail: neither of the next two.'),
    suppressed: z
      .number()
      .int()
      .describe('Members whose address is on the suppression list (unsubscribed, bounced, complained, manual).'),
    deleted_users: z
      .number()
      .int()
      .describe('Members whose account is deleted or banned. A member can be both suppressed and this.'),
  })
  .describe('How many members a campaign launched now would mail, and why the others would not be.');

/** Spec "Email audience members": an address, `{ user_id, email? }` or `{ email }`. */
const memberObject = z
  .object({
    user_id: z.guid().optional(),
    email: emailAddress.optional(),
  })
  .strict()
  .refine((member) => member.user_id !== undefined || member.email !== undefined, {
    error: 'a member object needs user_id or email',
  });

export const memberInput = z.union([emailAddress, memberObject]);
export type MemberInput = z.infer<typeof memberInput>;

export const replaceMembersBody = z
  .object({
    members: z
      .array(memberInput)
      .max(MAX_MEMBERS_PER_REQUEST)
      .optional()
      .describe(
        "Each an address (format email, max 320), `{ user_id, email? }` (no email: the account's) or `{ email }`.",
      ),
    csv: z
      .string()
      .max(MAX_CSV_LENGTH)
      .optional()
      .describe(
        'CSV text: the first column of each row is an address; an optional first row whose first cell is `email` ' +
          '(any case) is a header. Quotes, a UTF-8 BOM, CRLF and blank lines are fine.',
      ),
  })
  .strict()
  .refine((body) => (body.members === undefined) !== (body.csv === undefined), {
    error: 'send either members or csv',
  })
  .meta({
    examples: [
      {
        members: [
          'ada@example.com',
          { user_id: '0f8b6c2e-1d3a-4b5c-8e7f-9a0b1c2d3e4f' },
          { email: 'grace@example.com' },
        ],
      },
      { csv: 'email\r\nada@example.com\r\n"grace@example.com"\r\n' },
    ],
  });
export type ReplaceMembersInput = z.infer<typeof replaceMembersBody>;

export const replaceMembersResult = z
  .object({
    count: z.number().int().describe('Members on the list now, after duplicates were removed.'),
  })
  .describe('How many members the audience holds now.')
  .meta({ examples: [{ count: 3 }] });
