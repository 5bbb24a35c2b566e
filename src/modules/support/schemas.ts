import { z } from 'zod';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, pagedResponse, pageQuery } from '../../kernel/pagination.js';
import { MAX_ATTACHMENT_BYTES, ATTACHMENT_CONTENT_TYPES } from '../files/index.js';
import { SUPPORT_CATEGORIES, TICKET_STATUSES } from './tables.js';

// Support routes write snake_case, as the rest of /v1/me and /v1/admin.

/** The subject becomes a mail subject line: no line breaks or other control characters. */
const subject = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}]*$/u, 'must be one line without control characters');
const messageText = z.string().trim().min(1).max(10_000);

/** Keys of files the player uploaded for support; checked against their uploads when the message is written. */
const attachmentKeys = z
  .array(z.string().regex(/^[A-Za-z0-9/_.-]{1,300}$/, 'must be a storage object key'))
  .max(5)
  .refine((keys) => new Set(keys).size === keys.length, 'must not repeat a key')
  .describe(
    'Up to 5 keys of files the caller uploaded through `POST /v1/me/support/attachments/upload-url`, each used once.',
  );

export const attachmentUploadBody = z
  .object({
    content_type: z
      .enum(ATTACHMENT_CONTENT_TYPES)
      .describe(
        "PNG, JPEG, WebP, PDF or plain text (UTF-8); the file's first bytes are checked against it when a message " +
          'names the key.',
      ),
    size: z.number().int().min(1).max(MAX_ATTACHMENT_BYTES).describe('The file size in bytes (at most 10 MiB).'),
  })
  .strict();

const attachmentView = z.object({
  key: z.string(),
  content_type: z.enum(ATTACHMENT_CONTENT_TYPES),
  size: z.number().int().nullable(),
  url: z.string().describe('A signed download URL, valid at least an hour.'),
});

export const ticketIdParams = z.object({ id: z.guid() });

export const createTicketBody = z
  .object({
    subject,
    message: messageText,
    category: z.enum(SUPPORT_CATEGORIES),
    attachment_keys: attachmentKeys.optional(),
  })
  .strict();
export type CreateTicketInput = z.infer<typeof createTicketBody>;

export const playerMessageBody = z
  .object({
    message: messageText,
    attachment_keys: attachmentKeys.optional(),
  })
  .strict();
export type PlayerMessageInput = z.infer<typeof playerMessageBody>;

export const staffReplyBody = z.object({ message: messageText }).strict();
export type StaffReplyInput = z.infer<typeof staffReplyBody>;

/** A body-less POST is fine: the reason is optional. */
export const closeBody = z
  .object({
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('Why: kept on the ticket and in the audit log; never shown to the player.'),
  })
  .strict()
  .nullish();
export const reopenBody = z
  .object({
    reason: z.string().trim().min(1).max(500).optional().describe('Kept in the audit log.'),
  })
  .strict()
  .nullish();

const messageView = z.object({
  id: z.guid(),
  author: z.enum(['player', 'staff']),
  message: z.string(),
  attachment_keys: z.array(z.string()),
  attachments: z.array(attachmentView).describe('The files of `attachment_keys`, with download URLs.'),
  created_at: z.date(),
});

/** What the player sees of a ticket: never which staff member answered or why it was closed. */
const myTicketSummary = z
  .object({
    id: z.guid(),
    subject: z.string(),
    category: z.enum(SUPPORT_CATEGORIES),
    status: z.enum(TICKET_STATUSES),
    created_at: z.date(),
    updated_at: z.date().describe('Last activity: a message, a close or a reopen.'),
  })
  .describe("One of the caller's support tickets, without its messages.");
export type MyTicketSummary = z.infer<typeof myTicketSummary>;
export const myTicketView = myTicketSummary
  .extend({
    messages: z.array(messageView).describe("Oldest first; the first is the player's opening message."),
  })
  .meta({ id: 'MySupportTicket', description: "One of the caller's support tickets, with its messages." });
export type MyTicketView = z.infer<typeof myTicketView>;

export const myTicketsQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  per_page: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});
export type MyTicketsQuery = z.infer<typeof myTicketsQuery>;
export const myTicketsPage = pagedResponse(myTicketSummary);

const staffTicketSummary = myTicketSummary
  .extend({
    user: z
      .object({ id: z.guid(), email: z.string().nullable(), display_name: z.string().nullable() })
      .describe('The player who opened the ticket.'),
    message_count: z.number().int(),
    closed_at: z.date().nullable(),
    closed_by: z.guid().nullable(),
    close_reason: z.string().nullable(),
  })
  .meta({ id: 'SupportTicketSummary', description: 'A support ticket as staff lists show it.' });
export type StaffTicketSummary = z.infer<typeof staffTicketSummary>;
export const staffTicketView = staffTicketSummary
  .extend({
    messages: z.array(
      messageView.extend({
        author_id: z.guid().nullable().describe('The player, or the staff member who replied.'),
      }),
    ),
  })
  .meta({ id: 'SupportTicket', description: 'A support ticket with its messages, as staff see it.' });
export type StaffTicketView = z.infer<typeof staffTicketView>;
export const staffTicketsPage = pagedResponse(staffTicketSummary);

export const staffTicketsQuery = pageQuery(['created_at', 'updated_at'], {
  field: 'updated_at',
  direction: 'desc',
}).extend({
  status: z.enum(TICKET_STATUSES).optional(),
  category: z.enum(SUPPORT_CATEGORIES).optional(),
  user_id: z.guid().optional(),
});
export type StaffTicketsQuery = z.infer<typeof staffTicketsQuery>;
