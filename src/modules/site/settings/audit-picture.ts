import type { SiteSettingsTable, SiteSettingsVersionsTable } from '../../../db/tables.js';
import { auditPicture } from '../../../kernel/audit.js';

/** A settings document as audit rows keep it: its top-level keys, never its values. */
export function topLevelKeys(value: unknown): string[] {
  return typeof value === 'object' && value !== null ? Object.keys(value).sort() : [];
}

/** What a section's audit rows keep: the keys of its draft and which version is live. */
export const sectionPicture = auditPicture<SiteSettingsTable>({
  section: false,
  draft: { key: 'keys', show: topLevelKeys },
  draft_updated_by: false,
  draft_updated_at: false,
  published_version: { key: 'version' },
  published_value: false,
  published_by: false,
  published_at: false,
});

/** A published version: its number, the keys of its value and the version it restored (if any). */
export const sectionVersionPicture = auditPicture<SiteSettingsVersionsTable>({
  section: false,
  version: true,
  value: { key: 'keys', show: topLevelKeys },
  note: false,
  restored_version: true,
  published_by: false,
  published_at: false,
});
