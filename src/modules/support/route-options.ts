// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { avatarUploadGrant } from '../files/index.js';
import {
  attachmentUploadBody,
  closeBody,
  createTicketBody,
  myTicketsPage,
  myTicketsQuery,
  myTicketView,
  playerMessageBody,
  reopenBody,
  staffReplyBody,
  staffTicketsPage,
  staffTicketsQuery,
  staffTicketView,
  ticketIdParams,
} from './schemas.js';

const meTags = ['me: support'];
const staffTags = ['support'];
const read = { perms: ['support.read'] } as const;
const write = { perms: ['support.write'] } as const;
// The spec's "POST /v1/me/support group": opening a ticket and writing to one share one counter.
const limited = { rateLimit: 'support' } as const;
const STATUSES =
  'Statuses: `open` (waits on staff: new, or the player wrote again), `answered` (staff replied; waits on the ' +
  'player), `closed` (staff closed it; staff may reopen it).';
const NOT_YOURS = "404 `not_found` for another user's ticket exactly as for an unknown id.";

export const createMySupportAttachmentUploadUrl = {
  config: { rateLimit: 'supportAttachments' },
  schema: {
    operationId: 'createMySupportAttachmentUploadUrl',
    tags: meTags,
    summary: 'Get a support attachment upload URL',
    description:
      'A URL to PUT one file to (PNG, JPEG, WebP, PDF or plain text, at most 10 MiB), valid 10 minutes. Name ' +
      'its `key` in `attachment_keys` of a new ticket or message within that time. In depth: ' +
      '[docs/api/support.md](docs/api/support.md#get-a-support-attachment-upload-url).',
    body: attachmentUploadBody,
    response: { 200: avatarUploadGrant },
  },
} as const;

export const createMySupportTicket = {
  config: { ...limited, errors: { 422: ['invalid_request'] } },
  schema: {
    operationId: 'createMySupportTicket',
    tags: meTags,
    summary: 'Write to support',
    description:
      "Opens a ticket with the caller's first message and files uploaded before (`attachment_keys`); answers " +
      "201 with the ticket. An attachment that is not the caller's is refused as `unknown_attachment` (not an " +
      'upload of the caller, whoever it belongs to). In depth: ' +
      '[docs/api/support.md](docs/api/support.md#write-to-support).',
    body: createTicketBody,
    response: { 201: myTicketView },
  },
} as const;

export const listMySupportTickets = {
  schema: {
    operationId: 'listMySupportTickets',
    tags: meTags,
    summary: "The caller's tickets",
    description: `The caller's tickets, newest first, without their messages; \`meta.total\` counts \
them all. ${STATUSES}`,
    querystring: myTicketsQuery,
    response: { 200: myTicketsPage },
  },
} as const;

export const getMySupportTicket = {
  config: { errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getMySupportTicket',
    tags: meTags,
    summary: "One of the caller's tickets",
    description:
      `The ticket with its messages, oldest first (staff replies show as \`author: staff\`, without who wrote ` +
      `them). ${NOT_YOURS}`,
    params: ticketIdParams,
    response: { 200: myTicketView },
  },
} as const;

export const addMySupportTicketMessage = {
  config: { ...limited, errors: { 404: ['not_found'], 422: ['invalid_request', 'invalid_state'] } },
  schema: {
    operationId: 'addMySupportTicketMessage',
    tags: meTags,
    summary: 'Add a message to a ticket',
    description:
      "Adds the caller's message to their ticket, which waits on staff again, and answers the ticket. 404 " +
      "`not_found` for another user's ticket exactly as for an unknown id. In depth: " +
      '[docs/api/support.md](docs/api/support.md#add-a-message-to-a-ticket).',
    params: ticketIdParams,
    body: playerMessageBody,
    response: { 200: myTicketView },
  },
} as const;

export const listSupportTickets = {
  config: read,
  schema: {
    operationId: 'listSupportTickets',
    tags: staffTags,
    summary: 'List support tickets',
    description:
      `The support queue, paged with \`meta.total\`, most recently active first by default ` +
      `(\`sort=updated_at|created_at:asc|desc\`). Filters \`status\`, \`category\`, \`user_id\` and \`q\` ` +
      `(the subject or the player's email contains it, any case); all combine. ${STATUSES}`,
    querystring: staffTicketsQuery,
    response: { 200: staffTicketsPage },
  },
} as const;

export const getSupportTicket = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getSupportTicket',
    tags: staffTags,
    summary: 'Get a support ticket',
    description:
      'The ticket with the player (id, email, display name), how it was closed, and every message oldest first with its ' +
      'author. 404 `not_found`.',
    params: ticketIdParams,
    response: { 200: staffTicketView },
  },
} as const;

export const replySupportTicket = {
  config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
  schema: {
    operationId: 'replySupportTicket',
    tags: staffTags,
    summary: 'Reply to a support ticket',
    description:
      'Stores the reply as a staff message and sets the status to `answered`; the reply is mailed to the ' +
      "player's address (transactional) when the account has one. Answers 200 with the ticket. Errors: 400 " +
      'SchemaError; 404 `not_found`; 422 `invalid_state` when the ticket is closed (`details.status`; reopen ' +
      'it first). Audited (`support.ticket.reply`); a dashboard event `support.ticket_replied` follows the ' +
      'commit.',
    params: ticketIdParams,
    body: staffReplyBody,
    response: { 200: staffTicketView },
  },
} as const;

export const closeSupportTicket = {
  config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
  schema: {
    operationId: 'closeSupportTicket',
    tags: staffTags,
    summary: 'Close a support ticket',
    description:
      'Sets the status to `closed`, keeping who closed it and the optional `reason` (not shown to the player, ' +
      'who can no longer write to it). Nothing is mailed. Answers 200 with the ticket. Errors: 400 ' +
      'SchemaError; 404 `not_found`; 422 `invalid_state` when already closed. Audited ' +
      '(`support.ticket.close`); a dashboard event `support.ticket_closed` follows the commit.',
    params: ticketIdParams,
    body: closeBody,
    response: { 200: staffTicketView },
  },
} as const;

export const reopenSupportTicket = {
  config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
  schema: {
    operationId: 'reopenSupportTicket',
    tags: staffTags,
    summary: 'Reopen a support ticket',
    description:
      'Sets a closed ticket back to `open` and clears its closing fields. Answers 200 with the ticket. ' +
      'Errors: 400 SchemaError; 404 `not_found`; 422 `invalid_state` when the ticket is not closed. Audited ' +
      '(`support.ticket.reopen`); a dashboard event `support.ticket_reopened` follows the commit.',
    params: ticketIdParams,
    body: reopenBody,
    response: { 200: staffTicketView },
  },
} as const;
