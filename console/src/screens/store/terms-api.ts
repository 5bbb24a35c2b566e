import { type ListBody, type ListItem, unwrap } from '@platform-api/sdk';
import { api } from '../../api/client';

/** A genre, developer or publisher, with how many games link to it. */
export type Term = ListItem<ListBody<'/v1/admin/store/genres'>>;
export type TermKind = 'genres' | 'developers' | 'publishers';

export interface TermsQuery {
  q?: string;
  page?: number;
  per_page?: number;
  sort?: string;
}
export interface TermsPage {
  data: Term[];
  meta: { page: number; per_page: number; total: number };
}

/** The words each kind is spoken of in, and the game field that links to it. */
export const TERM_WORDS: Record<
  TermKind,
  {
    title: string;
    noun: string;
    linkField: 'genre_ids' | 'developer_ids' | 'publisher_ids';
    filter: 'genre_id' | 'developer_id' | 'publisher_id';
  }
> = {
  genres: { title: 'Genres', noun: 'genre', linkField: 'genre_ids', filter: 'genre_id' },
  developers: { title: 'Developers', noun: 'developer', linkField: 'developer_ids', filter: 'developer_id' },
  publishers: { title: 'Publishers', noun: 'publisher', linkField: 'publisher_ids', filter: 'publisher_id' },
};

export const TERM_KINDS: TermKind[] = ['genres', 'developers', 'publishers'];

/** The create operation of a kind, for `ruleOf` (the three share their bounds). */
export const CREATE_TERM: Record<TermKind, string> = {
  genres: 'POST /v1/admin/store/genres',
  developers: 'POST /v1/admin/store/developers',
  publishers: 'POST /v1/admin/store/publishers',
};

/**
 * The three lists' operations, each under its own path (the API's routes are one shape per kind;
 * the typed client and the console's coverage check both want the literal path).
 */
export const TERMS_API: Record<
  TermKind,
  {
    list: (query: TermsQuery) => Promise<TermsPage>;
    create: (body: { name: string; slug?: string }) => Promise<Term>;
    rename: (id: number, body: { name?: string; slug?: string }) => Promise<Term>;
    remove: (id: number) => Promise<unknown>;
  }
> = {
  genres: {
    list: (query) => unwrap(api.GET('/v1/admin/store/genres', { params: { query } })),
    create: (body) => unwrap(api.POST('/v1/admin/store/genres', { body })),
    rename: (id, body) => unwrap(api.PATCH('/v1/admin/store/genres/{id}', { params: { path: { id } }, body })),
    remove: (id) => unwrap(api.DELETE('/v1/admin/store/genres/{id}', { params: { path: { id } } })),
  },
  developers: {
    list: (query) => unwrap(api.GET('/v1/admin/store/developers', { params: { query } })),
    create: (body) => unwrap(api.POST('/v1/admin/store/developers', { body })),
    rename: (id, body) => unwrap(api.PATCH('/v1/admin/store/developers/{id}', { params: { path: { id } }, body })),
    remove: (id) => unwrap(api.DELETE('/v1/admin/store/developers/{id}', { params: { path: { id } } })),
  },
  publishers: {
    list: (query) => unwrap(api.GET('/v1/admin/store/publishers', { params: { query } })),
    create: (body) => unwrap(api.POST('/v1/admin/store/publishers', { body })),
    rename: (id, body) => unwrap(api.PATCH('/v1/admin/store/publishers/{id}', { params: { path: { id } }, body })),
    remove: (id) => unwrap(api.DELETE('/v1/admin/store/publishers/{id}', { params: { path: { id } } })),
  },
};
