import { createAchievementBody } from '../../modules/store/catalog/schemas.js';
import { AchievementsService } from '../../modules/store/catalog/service.js';
import { createGameBody } from '../../modules/store/games/schemas.js';
import { StoreGamesService } from '../../modules/store/games/service.js';
import { StoreTermsService } from '../../modules/store/terms/service.js';
import { slugFromName, TERM_KINDS, type TermKind } from '../../modules/store/term-kinds.js';
import { staffActor, type SeedContext } from './context.js';
import { DEMO_ACHIEVEMENTS, DEMO_DEVELOPERS, DEMO_GAMES, DEMO_GENRES, DEMO_PUBLISHERS } from './catalog.js';
import { gameBySlug, hasKey, termIdBySlug } from './queries.js';

const EDITOR = 'tomas.editor.demo@example.com';
const ADMIN = 'marcus.admin.demo@example.com';

/** The store's genres, developers and publishers, by name: their ids, made where missing. */
async function seedTerms(context: SeedContext, kind: TermKind, names: string[]): Promise<Map<string, number>> {
  const { platform, tally } = context;
  const terms = new StoreTermsService(platform.db, kind, platform.write);
  const ids = new Map<string, number>();
  for (const name of names) {
    const slug = slugFromName(name)!;
    let id = await termIdBySlug(platform.db, TERM_KINDS[kind].table, slug);
    tally.count(`store ${kind}`, id === undefined);
    id ??= (await terms.create(staffActor(context, EDITOR), { name, slug })).id;
    ids.set(name, id);
  }
  return ids;
}

/** Store terms, twenty games (most published), and the achievements. */
export async function seedStore(context: SeedContext): Promise<void> {
  const { platform, tally } = context;
  const genres = await seedTerms(context, 'genres', DEMO_GENRES);
  const developers = await seedTerms(context, 'developers', DEMO_DEVELOPERS);
  const publishers = await seedTerms(context, 'publishers', DEMO_PUBLISHERS);

  const games = new StoreGamesService(platform.db, platform.write);
  for (const [index, game] of DEMO_GAMES.entries()) {
    const exists = (await gameBySlug(platform.db, game.slug)) !== undefined;
    tally.count('store games', !exists);
    if (exists) continue;
    const released = new Date(context.now.getTime() - (30 + index * 41) * 86_400_000);
    await games.create(
      staffActor(context, EDITOR),
      createGameBody.parse({
        slug: game.slug,
        title: game.title,
        summary: game.summary,
        description: `${game.summary}\n\nA demo listing made by platform-api seed --demo.`,
        status: game.status,
        release_date: game.status === 'draft' ? null : released.toISOString().slice(0, 10),
        controller_support: game.controller,
        required_age: game.requiredAge,
        metadata: { demo: true },
        genre_ids: game.genres.map((name) => genres.get(name)!),
        developer_ids: [developers.get(game.developer)!],
        publisher_ids: [publishers.get(game.publisher)!],
      }),
    );
  }

  const achievements = new AchievementsService(platform.db, platform.write);
  for (const [index, achievement] of DEMO_ACHIEVEMENTS.entries()) {
    const exists = await hasKey(platform.db, 'catalog_achievements', achievement.key);
    tally.count('achievements', !exists);
    if (exists) continue;
    await achievements.create(
      staffActor(context, ADMIN),
      createAchievementBody.parse({
        key: achievement.key,
        name: achievement.name,
        description: achievement.description,
        reward_credits: achievement.rewardCredits,
        sort_order: index,
      }),
    );
  }
}
