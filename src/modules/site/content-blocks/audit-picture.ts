import { auditPicture } from '../../../kernel/audit.js';
import type { ContentBlocksTable } from './tables.js';

/** What a block's audit rows keep: where it shows and its state; its documents as their top-level keys. */
export const contentBlockPicture = auditPicture<ContentBlocksTable>({
  id: false,
  surface: true,
  slot: true,
  locale: true,
  draft: { key: 'draft_keys', show: (draft) => Object.keys(draft as object).sort() },
  published: false,
  status: true,
  sort_order: { key: 'sortOrder' },
  published_at: false,
  published_by: false,
  updated_by: false,
  created_at: false,
  updated_at: false,
});
