import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { conflict, invalidRequest, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import type { Writes } from '../../../kernel/write.js';
import { renderTemplate, templateProblems, templateVariables, type TemplateParts } from '../render.js';
import {
  countMessagesOf,
  deleteTemplate,
  findTemplateSummary,
  findVersion,
  insertTemplate,
  insertVersion,
  listTemplates,
  listVersions,
  lockTemplate,
  newestVersionNumber,
  nextVersionNumber,
  updateTemplate,
} from './queries.js';
import type {
  CreateTemplateInput,
  ListTemplatesQuery,
  NewVersionInput,
  PreviewInput,
  TemplateDetail,
  UpdateTemplateInput,
  VersionView,
} from './schemas.js';
import { templatePicture, templateVersionPicture } from './audit-picture.js';

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const TARGET_TYPE = 'email_template';

function sqlState(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

/**
 * A version's bodies are checked before anything is stored: a malformed `{{` would otherwise reach recipients verbatim.
 */
function refuseMalformed(parts: TemplateParts): void {
  const problems = templateProblems(parts);
  if (problems.length > 0) throw invalidRequest({ reason: 'the template has malformed placeholders', problems });
}

async function lockedTemplateOrThrow(trx: Kysely<Tables>, key: string) {
  const template = await lockTemplate(trx, key);
  if (template === undefined) throw notFound();
  return template;
}

/**
 * Where a preview's sample `unsubscribe_url` points; read at preview time (the key exists once the kernel has started).
 */
export interface PreviewLinks {
  unsubscribeUrl(sampleEmail: string): string;
}

/** The address previews render for when the caller gives no `email` var. */
export const PREVIEW_SAMPLE_EMAIL = 'recipient@example.com';

/** Email templates: versions that are never edited, and the one mail is made from. */
export class EmailTemplatesService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly links: PreviewLinks,
  ) {}

  async list(query: ListTemplatesQuery) {
    const { rows, total } = await listTemplates(this.db, query);
    return paged(rows, query, total);
  }

  async get(key: string): Promise<TemplateDetail> {
    const summary = await findTemplateSummary(this.db, key);
    if (summary === undefined) throw notFound();
    const [versions, published] = await Promise.all([
      listVersions(this.db, summary.id),
      summary.published_version === null ? undefined : findVersion(this.db, summary.id, summary.published_version),
    ]);
    return { ...summary, versions, published: published === undefined ? null : withVariables(published) };
  }

  async create(actor: Actor, input: CreateTemplateInput): Promise<TemplateDetail> {
    if (input.version !== undefined) refuseMalformed(input.version);
    try {
      await this.write(actor, async (w) => {
        const description = input.description ?? null;
        const { id } = await insertTemplate(w.trx, {
          key: input.key,
          name: input.name,
          description,
          category: input.category,
          createdBy: actor.userId,
        });
        if (input.version !== undefined)
          await insertVersion(w.trx, {
            templateId: id,
            version: 1,
            ...versionValues(input.version),
            createdBy: actor.userId,
          });
        await w.auditRow(templatePicture, {
          action: 'email.template.create',
          targetType: TARGET_TYPE,
          targetId: id,
          after: { ...input, description, version: input.version === undefined ? null : 1 },
        });
      });
    } catch (error) {
      if (sqlState(error) === UNIQUE_VIOLATION) throw conflict({ reason: 'key taken', key: input.key });
      throw error;
    }
    return this.get(input.key);
  }

  async update(actor: Actor, key: string, input: UpdateTemplateInput): Promise<TemplateDetail> {
    await this.write(actor, async (w) => {
      const current = await lockedTemplateOrThrow(w.trx, key);
      const changes = {
        name: input.name ?? current.name,
        description: input.description === undefined ? current.description : input.description,
        category: input.category ?? current.category,
      };
      await updateTemplate(w.trx, current.id, changes, actor.userId);
      await w.auditRow(templatePicture, {
        action: 'email.template.update',
        targetType: TARGET_TYPE,
        targetId: current.id,
        before: current,
        after: changes,
        only: ['name', 'description', 'category'],
      });
    });
    return this.get(key);
  }

  /**
   * Deletes the template and its versions, unless mail was made from it: messages reference
   * versions by foreign key (history must keep its content), so the database refuses and the
   * caller gets 409 with how many messages stand in the way.
   */
  async delete(actor: Actor, key: string): Promise<void> {
    let templateId: string | undefined;
    try {
      await this.write(actor, async (w) => {
        const current = await lockedTemplateOrThrow(w.trx, key);
        templateId = current.id;
        await deleteTemplate(w.trx, current.id);
        await w.auditRow(templatePicture, {
          action: 'email.template.delete',
          targetType: TARGET_TYPE,
          targetId: current.id,
          before: current,
          only: ['key', 'name', 'category', 'published_version'],
        });
      });
    } catch (error) {
      if (sqlState(error) !== FOREIGN_KEY_VIOLATION || templateId === undefined) throw error;
      const constraint = (error as { constraint?: unknown }).constraint;
      throw conflict({
        reason: 'the template is in use',
        template_key: key,
        messages: await countMessagesOf(this.db, templateId),
        ...(typeof constraint === 'string' ? { constraint } : {}),
      });
    }
  }

  /** Stores the next immutable version; nothing is published. The row lock makes concurrent adds take turns. */
  addVersion(actor: Actor, key: string, input: NewVersionInput): Promise<{ version: number }> {
    return this.write(actor, async (w) => {
      const template = await lockedTemplateOrThrow(w.trx, key);
      refuseMalformed(input);
      const version = await nextVersionNumber(w.trx, template.id);
      await insertVersion(w.trx, {
        templateId: template.id,
        version,
        ...versionValues(input),
        createdBy: actor.userId,
      });
      // A new version is activity on the template (lists sort by it), though nothing is published.
      await updateTemplate(w.trx, template.id, {}, actor.userId);
      await w.auditRow(templateVersionPicture, {
        action: 'email.template.version',
        targetType: TARGET_TYPE,
        targetId: template.id,
        reason: input.note ?? null,
        after: { ...input, version },
      });
      return { version };
    });
  }

  async version(key: string, version: number): Promise<VersionView> {
    const summary = await findTemplateSummary(this.db, key);
    if (summary === undefined) throw notFound();
    const row = await findVersion(this.db, summary.id, version);
    if (row === undefined) throw notFound('not_found', { version });
    return withVariables(row);
  }

  /** Makes a stored version the one mail is made from (an older one rolls back). */
  publish(actor: Actor, key: string, version: number): Promise<{ version: number }> {
    return this.write(actor, async (w) => {
      const current = await lockedTemplateOrThrow(w.trx, key);
      if ((await findVersion(w.trx, current.id, version)) === undefined) throw notFound('not_found', { version });
      await updateTemplate(w.trx, current.id, { published_version: version, published_at: new Date() }, actor.userId);
      await w.auditRow(templateVersionPicture, {
        action: 'email.template.publish',
        targetType: TARGET_TYPE,
        targetId: current.id,
        before: { version: current.published_version },
        after: { version },
      });
      return { version };
    });
  }

  /** After this the template cannot be used; one that is not published is left as it is (nothing audited). */
  async unpublish(actor: Actor, key: string): Promise<void> {
    await this.write(actor, async (w) => {
      const current = await lockedTemplateOrThrow(w.trx, key);
      if (current.published_version === null) return;
      await updateTemplate(w.trx, current.id, { published_version: null, published_at: null }, actor.userId);
      await w.auditRow(templateVersionPicture, {
        action: 'email.template.unpublish',
        targetType: TARGET_TYPE,
        targetId: current.id,
        before: { version: current.published_version },
        after: { version: null },
      });
    });
  }

  /** Renders a version as a recipient would get it; stores nothing. */
  async preview(
    key: string,
    input: PreviewInput,
  ): Promise<{ version: number; subject: string; html: string; text: string; variables: string[] }> {
    const summary = await findTemplateSummary(this.db, key);
    if (summary === undefined) throw notFound();
    const wanted = input?.version ?? summary.published_version ?? (await newestVersionNumber(this.db, summary.id));
    if (wanted === null) throw invalidRequest({ reason: 'the template has no versions', template_key: key });
    const row = await findVersion(this.db, summary.id, wanted);
    if (row === undefined) throw notFound('not_found', { version: wanted });
    // The sample link is signed for the sample address even when `email` is given: a preview
    // never mints a working unsubscribe link for an address of the caller's choosing.
    const vars = {
      email: PREVIEW_SAMPLE_EMAIL,
      unsubscribe_url: this.links.unsubscribeUrl(PREVIEW_SAMPLE_EMAIL),
      ...input?.vars,
    };
    return { version: row.version, ...renderTemplate(row, vars), variables: templateVariables(row) };
  }
}

function versionValues(input: NewVersionInput) {
  return { subject: input.subject, html: input.html, text: input.text, note: input.note ?? null };
}

function withVariables<T extends TemplateParts>(row: T): T & { variables: string[] } {
  return { ...row, variables: templateVariables(row) };
}
