import type { EmailCategory } from '../tables.js';

/** What a queued mail is made of (queue.ts queues them; queries.ts writes them). */

/** Rendered at send time from a fixed template version: later versions never change a queued mail. */
export interface TemplatedContent {
  template_id: string;
  template_version: number;
  vars?: Record<string, unknown>;
}

/** Sent as is. */
export interface LiteralContent {
  subject: string;
  html: string;
  text: string;
}

export type NewEmail = (TemplatedContent | LiteralContent) & {
  to_email: string;
  category: EmailCategory;
  user_id?: string | null;
  campaign_id?: string | null;
  broadcast_id?: string | null;
  /** Queued but not picked up until released (a paused campaign). */
  held?: boolean;
  /** Not sent before this time (default: now). */
  next_attempt_at?: Date;
};
