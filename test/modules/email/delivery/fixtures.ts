import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Kernel } from '../../../../src/kernel/kernel.js';
import { queueEmails, type NewEmail } from '../../../../src/modules/email/delivery/queue.js';
import { publishedTemplate } from '../../../helpers/campaigns.js';

/** Templates, queued messages and row reads for the email delivery tests. */

type Db = Kernel['db'];

export interface TemplateVersionFixture {
  id: string;
  version: number;
  key: string;
}

/** A template with one published version, inserted as the templates module stores it. */
export async function createTemplate(
  db: Db,
  parts: { subject: string; html: string; text: string },
): Promise<TemplateVersionFixture> {
  const key = `t-${randomUUID().slice(0, 8)}`;
  const id = await publishedTemplate(db, key, { name: `Template ${key}`, ...parts });
  return { id, version: 1, key };
}

/** A draft campaign row for messages to belong to (email_messages.campaign_id is a foreign key). */
export async function createCampaign(db: Db, template: TemplateVersionFixture): Promise<string> {
  const { rows } = await sql<{
    id: string;
  }>`INSERT INTO email_campaigns (name, template_id) VALUES (${`Campaign ${randomUUID().slice(0, 8)}`}, ${template.id}) RETURNING id`.execute(
    db,
  );
  return rows[0]!.id;
}

export const literal = (to_email: string, overrides: Partial<NewEmail> = {}): NewEmail =>
  ({
    to_email,
    category: 'transactional',
    subject: `Receipt for ${to_email}`,
    html: '<p>Thanks</p>',
    text: 'Thanks',
    ...overrides,
  }) as NewEmail;

export const templated = (
  template: TemplateVersionFixture,
  to_email: string,
  vars: Record<string, unknown> = {},
  overrides: Partial<NewEmail> = {},
): NewEmail =>
  ({
    to_email,
    category: 'marketing',
    template_id: template.id,
    template_version: template.version,
    vars,
    ...overrides,
  }) as NewEmail;

export async function queue(db: Db, emails: NewEmail[]): Promise<string[]> {
  return db.transaction().execute((trx) => queueEmails(trx, emails));
}

export const messageRow = (db: Db, id: string) =>
  db.selectFrom('email_messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

export const messageRows = (db: Db, ids: string[]) =>
  db
    .selectFrom('email_messages')
    .selectAll()
    .where('id', 'in', ids)
    .execute()
    .then((rows) => ids.map((id) => rows.find((row) => row.id === id)!));

/** Every test starts with an empty queue: a round takes whatever is due. */
export async function emptyQueue(db: Db): Promise<void> {
  await db.deleteFrom('email_messages').execute();
  await db.deleteFrom('email_suppressions').execute();
}

/** The token in a List-Unsubscribe header's https (or http) URL. */
export function unsubscribeTokenOf(header: string): string {
  const url = /<(https?:[^>]+)>/.exec(header)?.[1];
  if (url === undefined) throw new Error(`no URL in List-Unsubscribe: ${header}`);
  return new URL(url).searchParams.get('token')!;
}
