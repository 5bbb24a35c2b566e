import type { GameChanges } from './queries.js';
import { LINK_FIELDS, type GameLinks, type LinkField, type UpdateGameInput } from './schemas.js';
import type { StoreGameRow } from './tables.js';
import { canonicalJson } from '../../lib/canonical-json.js';

/** What an update asks for, split the way it is stored: row fields, and link lists per kind. */
export interface GameChangeSet {
  fields: GameChanges;
  links: Partial<GameLinks>;
}

/** The game's fields other than its links, as an update body names them. */
type GameField = Exclude<keyof UpdateGameInput, LinkField>;

/** A link list as stored: each id once, ascending. */
export function normalizeIds(ids: number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** Only what differs from the stored game: an update that changes nothing writes nothing. */
export function changesOf(current: StoreGameRow, currentLinks: GameLinks, input: UpdateGameInput): GameChangeSet {
  const fields: Record<string, unknown> = {};
  const links: Partial<GameLinks> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if ((LINK_FIELDS as readonly string[]).includes(key)) {
      const field = key as LinkField;
      const ids = normalizeIds(value as number[]);
      if (canonicalJson(ids) !== canonicalJson(currentLinks[field])) links[field] = ids;
      continue;
    }
    const stored = current[key as GameField];
    const same = key === 'metadata' ? canonicalJson(stored) === canonicalJson(value) : stored === value;
    if (!same) fields[key] = value;
  }
  return { fields: fields as GameChanges, links };
}

export function changedFieldNames(changes: GameChangeSet): string[] {
  return [...Object.keys(changes.fields), ...Object.keys(changes.links)];
}

/** Audit rows keep a picture of the change, not whole documents: long texts are cut, metadata shows its keys. */
const AUDIT_TEXT_MAX = 200;

function auditValue(field: string, value: unknown): unknown {
  if (field === 'metadata') return { keys: Object.keys((value ?? {}) as object).sort() };
  if (typeof value === 'string' && value.length > AUDIT_TEXT_MAX) return `${value.slice(0, AUDIT_TEXT_MAX)}…`;
  return value;
}

/** `before` and `after` of each changed field. */
export function auditSummary(current: StoreGameRow, currentLinks: GameLinks, changes: GameChangeSet) {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(changes.fields)) {
    before[field] = auditValue(field, current[field as GameField]);
    after[field] = auditValue(field, value);
  }
  for (const [field, ids] of Object.entries(changes.links)) {
    before[field] = currentLinks[field as LinkField];
    after[field] = ids;
  }
  return { before, after };
}
