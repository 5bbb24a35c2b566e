import type { components, ListBody, ListItem } from '@platform-api/sdk';

export type TicketSummary = ListItem<ListBody<'/v1/admin/support/tickets'>>;
export type Ticket = components['schemas']['SupportTicket'];
export type TicketStatus = Ticket['status'];

export const STATUS_LABELS: Record<TicketStatus, string> = {
  open: 'Waiting on staff',
  answered: 'Waiting on the player',
  closed: 'Closed',
};

export const CATEGORIES = ['account', 'billing', 'technical', 'abuse', 'other'] as const;

/** A player as staff name them: display name, else email; the id only when there is neither. */
export function playerName(user: { id: string; email: string | null; display_name: string | null }): string {
  return user.display_name ?? user.email ?? `Player without an email (${user.id.slice(0, 8)})`;
}

/** The reference players see in their mails (the API's `ticketReference`): the id's first 8 characters. */
export const ticketReference = (id: string) => id.slice(0, 8).toUpperCase();

/** How long ago, in the largest whole unit: "5 min", "3 h", "2 d". */
export function ageOf(iso: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.floor((now - new Date(iso).getTime()) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}
