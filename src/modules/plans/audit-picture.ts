import { auditPicture } from '../../kernel/audit.js';
import type { PlanRulesetsTable, PlanTiersTable } from './tables.js';

/**
 * What a ruleset's upsert keeps of it: what staff define (the key is the audit row's extra). Its
 * activity shows as `isActive`, the name the request gives it.
 */
export const rulesetPicture = auditPicture<PlanRulesetsTable>({
  id: false,
  key: false,
  name: true,
  description: true,
  limits: true,
  is_active: { key: 'isActive' },
  updated_by: false,
  created_at: false,
  updated_at: false,
});

/** What a tier's upsert keeps of it: what staff define, its ruleset by key (handed with the row) rather than id. */
export const tierPicture = auditPicture<PlanTiersTable & { rulesetKey: string }>({
  id: false,
  key: false,
  name: true,
  rank: true,
  ruleset_id: false,
  rulesetKey: true,
  description: true,
  updated_by: false,
  created_at: false,
  updated_at: false,
});
