import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { AppError, conflict, forbidden, invalidRequest } from '../../kernel/errors.js';
import { requestFingerprint } from '../../kernel/idempotency.js';
import { isUniqueViolation } from '../../lib/sql-errors.js';
import type { Writes } from '../../kernel/write.js';
import type { EmailCategory } from '../email/index.js';
import { findUsableTemplate } from '../email/templates/index.js';
import type { UserSegment } from '../users/index.js';
import {
  broadcastByRequestKey,
  countSegmentUpTo,
  insertBroadcast,
  insertNotification,
  insertSegmentRecipients,
  queueSegmentMail,
  setBroadcastCounts,
} from './broadcast-queries.js';
import type { BroadcastInput, BroadcastPreview, BroadcastPreviewInput, BroadcastResult } from './schemas.js';

type Db = Kysely<Tables>;

/** The spec's cap on a broadcast's matches. */
export const MAX_BROADCAST_RECIPIENTS = 10_000;

const isEmpty = (segment: UserSegment) => Object.values(segment).every((value) => value === undefined);
const IDEMPOTENCY_INDEX = 'notification_broadcasts_idempotency_idx';

interface IdempotentRequest {
  key: string;
  fingerprint: string;
}

export type BroadcastAnswer = BroadcastResult & { replayed: boolean };

/** The answer a broadcast gave, rebuilt from its record. */
function answerOf(row: {
  recipients: number | null;
  notifications_created: number | null;
  emails_queued: number | null;
}): BroadcastResult {
  return {
    recipients: row.recipients,
    notification: row.notifications_created === null ? null : { created: row.notifications_created },
    email: row.emails_queued === null ? null : { queued: row.emails_queued },
  };
}

/**
 * Operation 19. Each requested channel needs its own permission (in-app `announcements.write`,
 * email `email.send`), checked before anything is read or written. Everything happens in one
 * transaction: the broadcast record, the notification (one row for everyone, reaching future
 * users too, when the segment is empty; else one recipient row per matched user), the queued emails (INSERT … SELECT:
 * no query per recipient), the audit row and
 * the dashboard event, which is delivered once the transaction commits.
 */
export class BroadcastService {
  constructor(
    private readonly db: Db,
    private readonly write: Writes,
  ) {}

  /**
   * The count a broadcast to this segment would reach now, for the sender to see before sending:
   * read only, so it takes either channel's permission (the route checks it) and refuses nothing.
   */
  async preview(input: BroadcastPreviewInput): Promise<BroadcastPreview> {
    const recipients = await countSegmentUpTo(this.db, input.segment, MAX_BROADCAST_RECIPIENTS);
    return { recipients, max: MAX_BROADCAST_RECIPIENTS };
  }

  /**
   * With an Idempotency-Key, a repeat by the same staff member with the same body answers the
   * first broadcast (`replayed`) and sends nothing; another body is 409 `conflict`. The key is
   * written with the broadcast, so a concurrent repeat waits on its unique index and then replays.
   */
  async broadcast(
    actor: Actor,
    input: BroadcastInput,
    idempotencyKey?: string,
    now = new Date(),
  ): Promise<BroadcastAnswer> {
    if (input.notification !== undefined && !actor.permissions.has('announcements.write'))
      throw forbidden({ perm: 'announcements.write' });
    if (input.email !== undefined && !actor.permissions.has('email.send')) throw forbidden({ perm: 'email.send' });
    const window = input.notification;
    if (
      window?.starts_at !== undefined &&
      window.ends_at !== undefined &&
      new Date(window.starts_at) >= new Date(window.ends_at)
    ) {
      throw invalidRequest({ field: 'notification.ends_at', reason: 'must be after starts_at' });
    }
    if (window?.ends_at !== undefined && new Date(window.ends_at) <= now) {
      throw invalidRequest({ field: 'notification.ends_at', reason: 'must be in the future' });
    }
    const request =
      idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint: requestFingerprint(input) };
    try {
      return await this.#send(actor, input, request);
    } catch (error) {
      if (request === undefined || !isUniqueViolation(error, IDEMPOTENCY_INDEX)) throw error;
      // A concurrent repeat committed first: answer as it did.
      const replay = await this.#replay(this.db, actor, request);
      if (replay === undefined) throw error;
      return replay;
    }
  }

  async #replay(db: Db, actor: Actor, request: IdempotentRequest): Promise<BroadcastAnswer | undefined> {
    const earlier = await broadcastByRequestKey(db, actor.userId, request.key);
    if (earlier === undefined) return undefined;
    if (earlier.request_fingerprint !== request.fingerprint)
      throw conflict({ reason: 'this idempotency key was already used for a different request' });
    return { ...answerOf(earlier), replayed: true };
  }

  async #send(actor: Actor, input: BroadcastInput, request: IdempotentRequest | undefined): Promise<BroadcastAnswer> {
    const segment = input.segment;
    // The spec: an in-app notification to an empty segment is one row for everyone, email or not.
    const toEveryone = isEmpty(segment);

    // One snapshot for the whole broadcast: the count, the recipient rows and the queued mail each
    // select the segment's users again, and under READ COMMITTED a role granted or revoked (or a
    // user banned) between those statements made the notified, the mailed and the counted three
    // different sets. REPEATABLE READ can fail with a serialization error (the template row
    // share-locked below changed after the snapshot): run again from the start, bounded.
    return this.write(
      actor,
      async ({ trx, audit, publish }) => {
        const replay = request === undefined ? undefined : await this.#replay(trx, actor, request);
        if (replay !== undefined) return replay;
        // Share-locked until commit: the version cannot be unpublished while its mail is queued.
        const template =
          input.email === undefined ? undefined : await findUsableTemplate(trx, input.email.template_key);
        // Null only for an in-app broadcast to everyone; mail always goes to counted users.
        const recipients = toEveryone && input.email === undefined ? null : await this.#countMatches(trx, segment);
        const broadcast = await insertBroadcast(trx, {
          segment: JSON.stringify(segment),
          recipients,
          created_by: actor.userId,
          email_template_id: template?.id ?? null,
          email_template_version: template?.version ?? null,
          idempotency_key: request?.key ?? null,
          request_fingerprint: request?.fingerprint ?? null,
        });

        const created =
          input.notification === undefined
            ? null
            : await this.#notify(trx, broadcast.id, input.notification, toEveryone ? null : segment);
        const queued =
          input.email === undefined || template === undefined
            ? null
            : await this.#queueEmails(trx, broadcast.id, segment, template, input.email.vars);
        await setBroadcastCounts(trx, broadcast.id, { notificationsCreated: created, emailsQueued: queued });

        const result = answerOf({ recipients, notifications_created: created, emails_queued: queued });
        await audit({
          action: 'notifications.broadcast',
          targetType: 'notification_broadcast',
          targetId: broadcast.id,
          extra: {
            segment,
            ...result,
            ...(input.notification === undefined
              ? {}
              : { title: input.notification.title, kind: input.notification.kind }),
            ...(template === undefined
              ? {}
              : { template_key: input.email!.template_key, template_version: template.version }),
          },
        });
        await publish({
          kind: 'dashboard',
          name: 'notifications.broadcast_sent',
          payload: { broadcast_id: broadcast.id, ...result },
        });
        return { ...result, replayed: false };
      },
      { isolationLevel: 'repeatable read' },
    );
  }

  /** How many users the segment matches, refused when none or more than the cap (counted no further than the cap). */
  async #countMatches(trx: Db, segment: UserSegment): Promise<number> {
    const matches = await countSegmentUpTo(trx, segment, MAX_BROADCAST_RECIPIENTS);
    if (matches === 0) throw new AppError(422, 'empty_segment', { segment });
    if (matches > MAX_BROADCAST_RECIPIENTS)
      throw new AppError(422, 'segment_too_large', { max: MAX_BROADCAST_RECIPIENTS });
    return matches;
  }

  /** The notification and, for a segment, one recipient row per matched user; answers the rows made. */
  async #notify(
    trx: Db,
    broadcastId: string,
    notification: NonNullable<BroadcastInput['notification']>,
    segment: UserSegment | null,
  ): Promise<number> {
    const row = await insertNotification(trx, {
      broadcast_id: broadcastId,
      audience: segment === null ? 'everyone' : 'recipients',
      kind: notification.kind,
      title: notification.title,
      body: notification.body ?? null,
      action_url: notification.action_url ?? null,
      starts_at: notification.starts_at ?? null,
      ends_at: notification.ends_at ?? null,
    });
    if (segment === null) return 1;
    return insertSegmentRecipients(trx, row.id, segment);
  }

  /**
   * One message per matched user with an address. Marketing mail skips unsubscribed addresses
   * here already (the dispatcher checks again when it sends). Each message's vars are the
   * request's, over the user's `display_name`.
   */
  async #queueEmails(
    trx: Db,
    broadcastId: string,
    segment: UserSegment,
    template: { id: string; category: EmailCategory; version: number },
    vars: Record<string, unknown>,
  ): Promise<number> {
    return queueSegmentMail(trx, { broadcastId, segment, template, vars });
  }
}
