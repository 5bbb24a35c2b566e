import { auditPicture } from '../../../kernel/audit.js';
import type { StoreTermTable } from '../tables.js';

/** What a genre's, developer's or publisher's audit rows keep: its name and slug. */
export const termPicture = auditPicture<StoreTermTable>({
  id: false,
  name: true,
  slug: true,
  created_at: false,
  updated_at: false,
});
