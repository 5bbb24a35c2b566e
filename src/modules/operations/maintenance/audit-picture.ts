import type { OpsPanicStateTable } from '../../../db/tables.js';
import { auditPicture } from '../../../kernel/audit.js';

/**
 * What a level change keeps of the panic state: the level and its reason. Who set it and when are
 * the audit row's own fields; an automatic change says so in its extra.
 */
export const panicPicture = auditPicture<OpsPanicStateTable>({
  singleton: false,
  level: true,
  reason: true,
  set_by: false,
  set_at: false,
  auto: false,
});
