import { asLength, auditPicture } from '../../../kernel/audit.js';
import type { SitePagesTable, SitePageVersionsTable } from './tables.js';

/** What a page's audit rows keep: its address and title, and which version is live. */
export const pagePicture = auditPicture<SitePagesTable>({
  id: false,
  slug: true,
  title: true,
  published_version: { key: 'version' },
  published_at: false,
  published_by: false,
  created_by: false,
  created_at: false,
  updated_at: false,
});

/** A saved version: its number and the length of its text (the text itself is the version's record). */
export const pageVersionPicture = auditPicture<SitePageVersionsTable>({
  page_id: false,
  version: true,
  markdown: asLength('markdown_length'),
  note: false,
  created_by: false,
  created_at: false,
});
