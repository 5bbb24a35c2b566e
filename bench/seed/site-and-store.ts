import type { SeedSizes } from '../options.js';
import { benchUuidSql } from './fixtures.js';
import { pastInstant } from './people.js';
import type { SeedStep } from './seed-step.js';

const GENRES = 20;
const LOCALES = "ARRAY['en', 'de', 'fr', 'es', 'ja']";

/** The public site's inputs (settings, content blocks, announcements, pages), the store and the achievement catalog. */
export function siteAndStoreSteps(sizes: SeedSizes): SeedStep[] {
  const games = sizes.storeGames;
  const developers = Math.max(10, Math.round(games / 5));
  const publishers = Math.max(10, Math.round(games / 10));
  return [
    {
      label: 'published site settings, announcements and pages',
      sql: `
        UPDATE site_settings
           SET draft = v.value, published_value = v.value, published_version = 1, published_at = now()
          FROM (VALUES
            ('general', '{"site_name": "Bench Play", "tagline": "Games in your browser", "contact": "hello@bench.example"}'::jsonb),
            ('branding', '{"primary_color": "#5b21b6", "logo_url": "https://cdn.bench.example/logo.svg", "favicon_url": "https://cdn.bench.example/favicon.ico"}'::jsonb),
            ('seo', '{"title": "Bench Play: cloud gaming", "description": "Play a thousand games without downloads.", "keywords": ["cloud", "gaming"]}'::jsonb),
            ('support', '{"email": "support@bench.example", "hours": "9-17 CET"}'::jsonb),
            ('legal', '{"terms_url": "/pages/terms", "privacy_url": "/pages/privacy"}'::jsonb)) AS v(section, value)
         WHERE site_settings.section = v.section;
        INSERT INTO site_settings_versions (section, version, value, note)
        SELECT section, 1, published_value, 'bench seed' FROM site_settings WHERE published_version = 1;
        INSERT INTO announcements (title, body, severity, surface, starts_at, ends_at)
        SELECT 'Announcement ' || i, 'Something is happening on the platform (' || i || ').',
               (ARRAY['info', 'success', 'warning'])[1 + i % 3], (ARRAY['all', 'landing', 'portal'])[1 + i % 3],
               now() - interval '1 day', now() + interval '30 days'
          FROM generate_series(1, 10) AS i;
        INSERT INTO site_pages (slug, title) SELECT 'page-' || i, 'Page ' || i FROM generate_series(1, 20) AS i;
        INSERT INTO site_page_versions (page_id, version, markdown, note)
        SELECT id, 1, '# ' || title || E'\\n\\n' || repeat('Some words about the platform. ', 40), 'bench' FROM site_pages;
        UPDATE site_pages SET published_version = 1, published_at = now();`,
    },
    {
      label: `${sizes.contentBlocks} content blocks`,
      // (surface, locale, slot) is unique: i mod 2, (i / 2) mod 5 and i / 10 together determine i.
      sql: `
        INSERT INTO content_blocks (surface, slot, locale, draft, published, status, sort_order, published_at)
        SELECT CASE WHEN i % 2 = 0 THEN 'landing' ELSE 'portal' END,
               'section_' || (i / 10),
               (${LOCALES})[1 + (i / 2) % 5],
               b.content, CASE WHEN i % 10 = 9 THEN NULL ELSE b.content END,
               CASE WHEN i % 10 = 9 THEN 'draft' ELSE 'published' END,
               i / 10, CASE WHEN i % 10 = 9 THEN NULL ELSE now() END
          FROM generate_series(0, ${sizes.contentBlocks - 1}) AS i,
               LATERAL (SELECT jsonb_build_object('title', 'Section ' || i, 'body', repeat('Play anywhere. ', 10),
                                                  'image', 'https://cdn.bench.example/blocks/' || i || '.webp',
                                                  'cta', jsonb_build_object('label', 'Start playing', 'url', '/store')) AS content) AS b;`,
    },
    {
      label: `${games} store games with genres, developers and publishers`,
      sql: `
        INSERT INTO store_genres (name, slug) SELECT 'Genre ' || i, 'genre-' || i FROM generate_series(1, ${GENRES}) AS i;
        INSERT INTO store_developers (name, slug) SELECT 'Developer ' || i, 'developer-' || i FROM generate_series(1, ${developers}) AS i;
        INSERT INTO store_publishers (name, slug) SELECT 'Publisher ' || i, 'publisher-' || i FROM generate_series(1, ${publishers}) AS i;
        INSERT INTO store_games (slug, title, summary, description, game_type, status, release_date, controller_support,
                                 website, required_age, metadata, created_at)
        SELECT 'game-' || i, 'Bench Game ' || i, 'A game about number ' || i || '.', repeat('A long description. ', 50),
               CASE WHEN i % 25 = 0 THEN 'app' ELSE 'game' END,
               CASE WHEN i % 10 < 8 THEN 'published' WHEN i % 10 = 8 THEN 'draft' ELSE 'hidden' END,
               (current_date - (i * 37 % 3650))::date,
               (ARRAY['none', 'partial', 'full'])[1 + i % 3],
               'https://games.bench.example/' || i, (ARRAY[0, 7, 12, 16, 18])[1 + i % 5],
               jsonb_build_object('players', 1 + i % 4), ${pastInstant('i', 1000)}
          FROM generate_series(1, ${games}) AS i;
        INSERT INTO store_game_genres (game_id, genre_id)
        SELECT g.id, ge.id
          FROM generate_series(1, ${games}) AS i
          JOIN store_games g ON g.slug = 'game-' || i
          CROSS JOIN generate_series(0, 2) AS k
          JOIN store_genres ge ON ge.slug = 'genre-' || (1 + (i + k * 7) % ${GENRES})
         WHERE k <= i % 3;
        INSERT INTO store_game_developers (game_id, developer_id)
        SELECT g.id, d.id FROM generate_series(1, ${games}) AS i
          JOIN store_games g ON g.slug = 'game-' || i JOIN store_developers d ON d.slug = 'developer-' || (1 + i % ${developers});
        INSERT INTO store_game_publishers (game_id, publisher_id)
        SELECT g.id, p.id FROM generate_series(1, ${games}) AS i
          JOIN store_games g ON g.slug = 'game-' || i JOIN store_publishers p ON p.slug = 'publisher-' || (1 + i % ${publishers});`,
    },
    {
      label: `${sizes.achievements} achievements`,
      sql: `
        INSERT INTO catalog_achievements (id, key, name, description, icon_path, reward_credits, sort_order)
        SELECT ${benchUuidSql('achievement', 'i')}, 'bench_ach_' || i, 'Achievement ' || i, 'Do thing number ' || i || '.',
               '/icons/ach-' || i || '.png', 10 * (i % 50), i
          FROM generate_series(1, ${sizes.achievements}) AS i;`,
    },
  ];
}
