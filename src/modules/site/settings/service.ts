import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { forbidden, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import { SITE_CONFIG_TOPIC } from '../public/index.js';
import type { Writes } from '../../../kernel/write.js';
import {
  findVersion,
  insertPublishedVersion,
  listSections,
  listVersions,
  lockSection,
  saveSectionDraft,
} from './queries.js';
import { isSection, SECTION_FIELDS, SECTION_NAMES, SECTION_WRITE_PERMISSION, type SectionName } from './sections.js';
import type { VersionsQuery } from './schemas.js';
import { sectionPicture, sectionVersionPicture } from './audit-picture.js';

function knownSection(section: string): SectionName {
  if (!isSection(section)) throw notFound('not_found', { section });
  return section;
}

/** Unknown section first (404), then the section's own write key (403 naming it). */
function writableSection(actor: Actor, section: string): SectionName {
  const name = knownSection(section);
  const perm = SECTION_WRITE_PERMISSION[name];
  if (!actor.permissions.has(perm)) throw forbidden({ perm });
  return name;
}

export class SiteSettingsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

  async list() {
    const rows = await listSections(this.db);
    const order = new Map(SECTION_NAMES.map((name, index) => [name as string, index]));
    rows.sort((a, b) => (order.get(a.section) ?? 0) - (order.get(b.section) ?? 0));
    return {
      data: rows.map((row) => ({
        ...row,
        write_permission: SECTION_WRITE_PERMISSION[row.section as SectionName],
        draft: row.draft as Record<string, unknown>,
        published_value: row.published_value as Record<string, unknown> | null,
        has_unpublished_changes: JSON.stringify(row.draft) !== JSON.stringify(row.published_value ?? {}),
        known_fields: SECTION_FIELDS[row.section as SectionName],
      })),
    };
  }

  /** Operation 3: replace the draft; nothing goes live. */
  async saveDraft(actor: Actor, section: string, draft: Record<string, unknown>): Promise<void> {
    const name = writableSection(actor, section);
    await this.write(actor, async (w) => {
      const before = await lockSection(w.trx, name);
      await saveSectionDraft(w.trx, name, { json: JSON.stringify(draft), by: actor.userId, at: new Date() });
      // A section never saved has no row: its picture is an empty draft's.
      await w.auditRow(sectionPicture, {
        action: 'site.settings.save_draft',
        targetType: 'site_settings',
        targetId: name,
        before: { draft: before?.draft ?? null },
        after: { draft },
        only: ['draft'],
      });
    });
  }

  /** Operation 5: the draft becomes the next published version. */
  publish(actor: Actor, section: string, note: string | undefined): Promise<{ version: number }> {
    const name = writableSection(actor, section);
    return this.#publish(actor, name, { note: note ?? null, restoredVersion: null });
  }

  /** Publishes an older version's value again, as a new version (history is never rewritten). */
  async rollback(
    actor: Actor,
    section: string,
    version: number,
    note: string | undefined,
  ): Promise<{ version: number }> {
    const name = writableSection(actor, section);
    return this.#publish(actor, name, { note: note ?? null, restoredVersion: version });
  }

  async versions(section: string, query: VersionsQuery) {
    const name = knownSection(section);
    const { rows, total } = await listVersions(this.db, name, query);
    return paged(rows, query, total);
  }

  async #publish(actor: Actor, section: SectionName, options: { note: string | null; restoredVersion: number | null }) {
    return this.write(actor, async (w) => {
      const current = await lockSection(w.trx, section);
      if (current === undefined) throw notFound('not_found', { section });
      let value: unknown = current.draft;
      if (options.restoredVersion !== null) {
        const old = await findVersion(w.trx, section, options.restoredVersion);
        if (old === undefined) throw notFound('not_found', { section, version: options.restoredVersion });
        value = old.value;
      }
      const version = (current.published_version ?? 0) + 1;
      const published = { section, version, value, note: options.note, restored_version: options.restoredVersion };
      await insertPublishedVersion(w.trx, {
        ...published,
        restoredVersion: options.restoredVersion,
        publishedBy: actor.userId,
      });
      const action = options.restoredVersion === null ? 'site.settings.publish' : 'site.settings.rollback';
      await w.audit({
        action,
        targetType: 'site_settings',
        targetId: section,
        reason: options.note,
        before: sectionPicture.of(current, ['published_version']),
        after: sectionVersionPicture.of(published),
      });
      await w.publish({
        kind: 'dashboard',
        name: 'site.settings_published',
        payload: { section, version, restored_version: options.restoredVersion },
      });
      w.invalidate(SITE_CONFIG_TOPIC);
      return { version };
    });
  }
}
