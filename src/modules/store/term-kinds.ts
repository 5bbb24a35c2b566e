/** A game's link lists, one per term kind. */
export const LINK_FIELDS = ['genre_ids', 'developer_ids', 'publisher_ids'] as const;
export type LinkField = (typeof LINK_FIELDS)[number];
export type GameLinks = Record<LinkField, number[]>;

/**
 * Genres, developers and publishers ("terms"): one shape, three tables, each linked to games by
 * its own link table. Everything that differs between the three is in this table.
 */
export const TERM_KINDS = {
  genres: {
    table: 'store_genres',
    link: 'store_game_genres',
    linkColumn: 'genre_id',
    linkField: 'genre_ids',
    noun: 'genre',
  },
  developers: {
    table: 'store_developers',
    link: 'store_game_developers',
    linkColumn: 'developer_id',
    linkField: 'developer_ids',
    noun: 'developer',
  },
  publishers: {
    table: 'store_publishers',
    link: 'store_game_publishers',
    linkColumn: 'publisher_id',
    linkField: 'publisher_ids',
    noun: 'publisher',
  },
} as const satisfies Record<
  string,
  { table: string; link: string; linkColumn: string; linkField: LinkField; noun: string }
>;

export type TermKind = keyof typeof TERM_KINDS;
export const TERM_KIND_NAMES = Object.keys(TERM_KINDS) as TermKind[];
export type TermConfig = (typeof TERM_KINDS)[TermKind];

export function termKindOfLinkField(field: LinkField): TermKind {
  return TERM_KIND_NAMES.find((kind) => TERM_KINDS[kind].linkField === field) as TermKind;
}

export const TERM_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
const ALL_DIGITS = /^[0-9]+$/;

/** A term slug: never all digits, so the public `genre` filter can tell an id from a slug. */
export function isTermSlug(slug: string): boolean {
  return TERM_SLUG_PATTERN.test(slug) && !ALL_DIGITS.test(slug);
}

/** "Role-Playing (RPG)" → "role-playing-rpg"; undefined when nothing usable is left. */
export function slugFromName(name: string): string | undefined {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return isTermSlug(slug) ? slug : undefined;
}
