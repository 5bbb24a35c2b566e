import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';
import { httpUrl } from '../../../lib/url-field.js';
import { INT4_MAX, storeId } from '../ids.js';
import { CONTROLLER_SUPPORT, GAME_STATUSES, GAME_TYPES } from '../tables.js';

export const GAME_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,127}$/;
const linkIds = z.array(z.number().int().min(1).max(INT4_MAX)).max(50);

/** The spec's StoreGame input fields and bounds ("Game (StoreGame…)"), in one place. */
const gameFields = {
  slug: z.string().regex(GAME_SLUG_PATTERN, 'slug must match ^[a-z0-9][a-z0-9-]{0,127}$'),
  title: z.string().min(1).max(200),
  summary: z.string().max(2000).nullable(),
  description: z.string().max(20000).nullable(),
  game_type: z.enum(GAME_TYPES),
  status: z.enum(GAME_STATUSES),
  release_date: z.iso
    .date('release_date must be a date YYYY-MM-DD')
    // Year 0000 passes the pattern but is no date PostgreSQL can store.
    .refine((value) => !value.startsWith('0000-'), 'release_date must be a date YYYY-MM-DD')
    .nullable(),
  controller_support: z.enum(CONTROLLER_SUPPORT),
  // Shown on the public store page: only web addresses, never `javascript:` and the like.
  website: httpUrl({ max: 500 }).nullable(),
  required_age: z.number().int().min(0).max(21),
  legal_notice: z.string().max(5000).nullable(),
  license_required: z.boolean(),
  content_description: z.string().max(5000).nullable(),
  metadata: z
    .record(z.string(), z.unknown())
    .describe('Free-form object; shown on the public store page once the game is published.'),
  genre_ids: linkIds.describe(
    'Genre ids, at most 50; the links are replaced by exactly this list (repeats count once).',
  ),
  developer_ids: linkIds.describe('Developer ids, at most 50; replaces the links.'),
  publisher_ids: linkIds.describe('Publisher ids, at most 50; replaces the links.'),
};

export const createGameBody = z
  .object({
    slug: gameFields.slug,
    title: gameFields.title,
    summary: gameFields.summary.optional(),
    description: gameFields.description.optional(),
    game_type: gameFields.game_type.default('game'),
    status: gameFields.status.default('draft'),
    release_date: gameFields.release_date.optional(),
    controller_support: gameFields.controller_support.default('none'),
    website: gameFields.website.optional(),
    required_age: gameFields.required_age.default(0),
    legal_notice: gameFields.legal_notice.optional(),
    license_required: gameFields.license_required.default(false),
    content_description: gameFields.content_description.optional(),
    metadata: gameFields.metadata.default({}),
    genre_ids: gameFields.genre_ids.default([]),
    developer_ids: gameFields.developer_ids.default([]),
    publisher_ids: gameFields.publisher_ids.default([]),
  })
  .strict();
export type CreateGameInput = z.infer<typeof createGameBody>;

/** Operation 20: any input field; omitted fields (and link arrays) stay as they are. */
export const updateGameBody = z
  .object(gameFields)
  .partial()
  .strict()
  .meta({
    examples: [{ status: 'published', summary: 'A co-op space shooter for up to four players.', genre_ids: [3, 7] }],
  });
export type UpdateGameInput = z.infer<typeof updateGameBody>;

/** The StoreGame row, with the ids it links to. */
export const gameBody = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    title: z.string(),
    summary: z.string().nullable(),
    description: z.string().nullable(),
    game_type: z.enum(GAME_TYPES),
    status: z.enum(GAME_STATUSES),
    release_date: z.string().nullable().describe('YYYY-MM-DD'),
    controller_support: z.enum(CONTROLLER_SUPPORT),
    website: z.string().nullable(),
    required_age: z.number().int(),
    legal_notice: z.string().nullable(),
    license_required: z.boolean(),
    content_description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    genre_ids: z.array(z.number().int()),
    developer_ids: z.array(z.number().int()),
    publisher_ids: z.array(z.number().int()),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({
    id: 'StoreGame',
    description: 'A store game with its links to genres, developers and publishers.',
    examples: [
      {
        id: 42,
        slug: 'starfall',
        title: 'Starfall',
        summary: 'A co-op space shooter for up to four players.',
        description: null,
        game_type: 'game',
        status: 'published',
        release_date: '2026-10-15',
        controller_support: 'full',
        website: 'https://starfall.example',
        required_age: 12,
        legal_notice: null,
        license_required: false,
        content_description: 'Fantasy violence',
        metadata: {},
        genre_ids: [3, 7],
        developer_ids: [11],
        publisher_ids: [4],
        created_at: new Date('2026-09-01T10:00:00.000Z'),
        updated_at: new Date('2026-11-27T18:04:12.000Z'),
      },
    ],
  });
export type GameView = z.infer<typeof gameBody>;

export const GAME_SORT_FIELDS = ['title', 'created_at', 'updated_at', 'release_date'] as const;
export const listGamesQuery = pageQuery(GAME_SORT_FIELDS, { field: 'created_at', direction: 'desc' }).extend({
  status: z.enum(GAME_STATUSES).optional(),
  game_type: z.enum(GAME_TYPES).optional(),
  genre_id: storeId.optional().describe('Only games linked to this genre.'),
  developer_id: storeId.optional().describe('Only games linked to this developer.'),
  publisher_id: storeId.optional().describe('Only games linked to this publisher.'),
});
export type ListGamesQuery = z.infer<typeof listGamesQuery>;
export const gamesPage = pagedResponse(gameBody);
