import type { GameChanges } from './queries.js';
import type { UpdateGameInput } from './schemas.js';
import { LINK_FIELDS, type GameLinks, type LinkField } from '../term-kinds.js';
import type { StoreGameRow } from '../tables.js';
import { auditChanges, briefAuditValue } from '../../../kernel/audit.js';

/** What an update asks for, split the way it is stored: row fields, and link lists per kind. */
export interface GameChangeSet {
  fields: GameChanges;
  links: Partial<GameLinks>;
  /** The names of what changes: row fields first, then link lists. */
  changed: string[];
  /** The audit row's pictures of what changes. */
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

/** A link list as stored: each id once, ascending. */
export function normalizeIds(ids: number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

const isLinkField = (field: string): field is LinkField => (LINK_FIELDS as readonly string[]).includes(field);

/** Only what differs from the stored game: an update that changes nothing writes nothing. */
export function changesOf(current: StoreGameRow, currentLinks: GameLinks, input: UpdateGameInput): GameChangeSet {
  const wanted: Record<string, unknown> = { ...input };
  for (const field of LINK_FIELDS) if (input[field] !== undefined) wanted[field] = normalizeIds(input[field]);
  const { before, after, changed } = auditChanges({ ...current, ...currentLinks }, wanted, { show: briefAuditValue });
  const fields: Record<string, unknown> = {};
  const links: Partial<GameLinks> = {};
  for (const field of changed) {
    if (isLinkField(field)) links[field] = wanted[field] as number[];
    else fields[field] = wanted[field];
  }
  return {
    fields: fields as GameChanges,
    links,
    changed: [...Object.keys(fields), ...Object.keys(links)],
    before,
    after,
  };
}
