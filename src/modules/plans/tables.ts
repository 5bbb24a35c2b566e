import type { Generated, Selectable } from 'kysely';
import type { DefaultedTimestamp, Json } from '../../db/column-types.js';

export interface PlanRulesetsTable {
  id: Generated<string>;
  key: string;
  name: string;
  description: string | null;
  limits: Json;
  is_active: boolean;
  updated_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface PlanTiersTable {
  id: Generated<string>;
  key: string;
  name: string;
  rank: number;
  ruleset_id: string;
  description: string | null;
  updated_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

/** Migration 0051's view: what plans publishes of a tier for other areas to read. */
export interface PlanTierDirectoryView {
  key: string;
  name: string;
  rank: number;
}

declare module '../../db/tables.js' {
  interface Tables {
    plan_rulesets: PlanRulesetsTable;
    plan_tiers: PlanTiersTable;
    /** @published (a view: a tier's key, name and rank) */
    plan_tier_directory: PlanTierDirectoryView;
  }
}

export type RulesetRow = Selectable<PlanRulesetsTable>;
export type TierRow = Selectable<PlanTiersTable>;
