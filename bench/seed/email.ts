import type { SeedSizes } from '../options.js';
import { AUDIENCE_ID, EMAIL_TEMPLATE_KEY, benchUuidSql } from './fixtures.js';
import type { SeedStep } from './seed-step.js';

/**
 * How the audience is made: a fifth of it are players' own addresses (linked to their accounts),
 * the rest addresses from elsewhere. The CSVs of operation 9 are built from the same rule
 * (bench/bulk-operations.ts), so a replace keeps most members, drops some and adds some.
 */
export function audienceShape(sizes: SeedSizes): { players: number; outsiders: number } {
  const players = Math.min(sizes.activeUsers, Math.floor(sizes.audienceMembers / 5));
  return { players, outsiders: sizes.audienceMembers - players };
}

export function outsiderEmail(n: number): string {
  return `reader${n}@list.bench.example`;
}

/** A published marketing template for the broadcast, and the 50,000-member audience. */
export function emailSteps(sizes: SeedSizes): SeedStep[] {
  const { players, outsiders } = audienceShape(sizes);
  const suppressed = Math.floor(sizes.audienceMembers / 100);
  const templateId = benchUuidSql('template', '1');
  return [
    {
      label: 'email template',
      sql: `
        INSERT INTO email_templates (id, key, name, category) VALUES (${templateId}, '${EMAIL_TEMPLATE_KEY}', 'Bench newsletter', 'marketing');
        INSERT INTO email_template_versions (template_id, version, subject, html, text, note) VALUES
          (${templateId}, 1, 'News for {{ display_name | "you" }}',
           '<h1>Hello {{ display_name | "player" }}</h1><p>{{ headline }}</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
           E'Hello {{ display_name | "player" }}\\n\\n{{ headline }}\\n\\nUnsubscribe: {{ unsubscribe_url }}', 'bench');
        UPDATE email_templates SET published_version = 1, published_at = now() WHERE key = '${EMAIL_TEMPLATE_KEY}';`,
    },
    {
      label: `audience of ${sizes.audienceMembers} members, ${suppressed} suppressions`,
      sql: `
        INSERT INTO email_audiences (id, name, description) VALUES ('${AUDIENCE_ID}', 'Bench newsletter', 'Everyone who asked for news');
        INSERT INTO email_audience_members (audience_id, email, user_id)
        SELECT '${AUDIENCE_ID}', 'player' || i || '@bench.example', ${benchUuidSql('user', 'i')} FROM generate_series(1, ${players}) AS i;
        INSERT INTO email_audience_members (audience_id, email)
        SELECT '${AUDIENCE_ID}', 'reader' || i || '@list.bench.example' FROM generate_series(1, ${outsiders}) AS i;
        INSERT INTO email_suppressions (email, reason, source)
        SELECT 'reader' || i || '@list.bench.example', 'unsubscribed', 'link' FROM generate_series(1, ${suppressed}) AS i;`,
    },
  ];
}
