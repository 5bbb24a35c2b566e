/** The demo's store: terms, games and achievements, fixed (the random generator only spreads dates). */

export const DEMO_GENRES = ['Action', 'Adventure', 'Puzzle', 'Racing', 'Strategy', 'RPG', 'Platformer', 'Simulation'];
export const DEMO_DEVELOPERS = ['Lantern Forge', 'Pixel Harbor', 'Northwind Studio', 'Copperleaf Games', 'Tidal Byte'];
export const DEMO_PUBLISHERS = ['Brightside Interactive', 'Nimbus Play Publishing', 'Orbit Arcade'];

export interface DemoGame {
  slug: string;
  title: string;
  summary: string;
  genres: string[];
  developer: string;
  publisher: string;
  status: 'draft' | 'published' | 'hidden';
  controller: 'none' | 'partial' | 'full';
  requiredAge: number;
}

const game = (
  slug: string,
  title: string,
  summary: string,
  genres: string[],
  developer: string,
  publisher: string,
  status: DemoGame['status'] = 'published',
  controller: DemoGame['controller'] = 'full',
  requiredAge = 0,
): DemoGame => ({ slug, title, summary, genres, developer, publisher, status, controller, requiredAge });

export const DEMO_GAMES: DemoGame[] = [
  game(
    'starfall-raiders',
    'Starfall Raiders',
    'Co-op space shooter for up to four pilots.',
    ['Action'],
    'Lantern Forge',
    'Brightside Interactive',
    'published',
    'full',
    12,
  ),
  game(
    'moss-and-marrow',
    'Moss & Marrow',
    'A hand-drawn adventure through a living forest.',
    ['Adventure', 'Platformer'],
    'Copperleaf Games',
    'Orbit Arcade',
  ),
  game(
    'gridlock-grand-prix',
    'Gridlock Grand Prix',
    'Arcade racing on city streets at night.',
    ['Racing'],
    'Tidal Byte',
    'Nimbus Play Publishing',
  ),
  game(
    'quiet-lighthouse',
    'The Quiet Lighthouse',
    'A slow puzzle game about light and tides.',
    ['Puzzle', 'Adventure'],
    'Northwind Studio',
    'Orbit Arcade',
    'published',
    'partial',
  ),
  game(
    'ironclad-empires',
    'Ironclad Empires',
    'Turn-based strategy across a steam-age continent.',
    ['Strategy'],
    'Lantern Forge',
    'Brightside Interactive',
    'published',
    'none',
    12,
  ),
  game(
    'emberfall-chronicles',
    'Emberfall Chronicles',
    'An open-world RPG of fire mages and fallen kings.',
    ['RPG', 'Adventure'],
    'Pixel Harbor',
    'Nimbus Play Publishing',
    'published',
    'full',
    16,
  ),
  game(
    'tiny-farm-tycoon',
    'Tiny Farm Tycoon',
    'Grow a farm from one field to a market empire.',
    ['Simulation', 'Strategy'],
    'Copperleaf Games',
    'Orbit Arcade',
    'published',
    'partial',
  ),
  game(
    'neon-drift',
    'Neon Drift',
    'Drift through synthwave highways.',
    ['Racing', 'Action'],
    'Tidal Byte',
    'Orbit Arcade',
  ),
  game(
    'cubeworks',
    'Cubeworks',
    'Rotate, stack and solve 200 handmade puzzles.',
    ['Puzzle'],
    'Northwind Studio',
    'Nimbus Play Publishing',
    'published',
    'partial',
  ),
  game(
    'skyhook-heist',
    'Skyhook Heist',
    'A stealth caper on airships above the clouds.',
    ['Action', 'Adventure'],
    'Pixel Harbor',
    'Brightside Interactive',
    'published',
    'full',
    12,
  ),
  game(
    'deep-station',
    'Deep Station',
    'Run a research base at the bottom of the sea.',
    ['Simulation'],
    'Northwind Studio',
    'Brightside Interactive',
  ),
  game(
    'paper-knights',
    'Paper Knights',
    'A papercraft platformer for two players.',
    ['Platformer'],
    'Copperleaf Games',
    'Nimbus Play Publishing',
  ),
  game(
    'rune-tactics',
    'Rune Tactics',
    'Squad tactics with runes you combine.',
    ['Strategy', 'RPG'],
    'Lantern Forge',
    'Orbit Arcade',
    'published',
    'none',
  ),
  game(
    'harbor-lights',
    'Harbor Lights',
    'Cozy fishing and trading in a seaside town.',
    ['Simulation', 'Adventure'],
    'Tidal Byte',
    'Nimbus Play Publishing',
  ),
  game(
    'vortex-arena',
    'Vortex Arena',
    'Fast arena battles, ten minutes a match.',
    ['Action'],
    'Pixel Harbor',
    'Brightside Interactive',
    'published',
    'full',
    16,
  ),
  game(
    'glacier-run',
    'Glacier Run',
    'Downhill sledding against the avalanche.',
    ['Racing', 'Platformer'],
    'Copperleaf Games',
    'Orbit Arcade',
  ),
  game(
    'clockwork-courier',
    'Clockwork Courier',
    'Deliver parcels through a city of gears.',
    ['Puzzle', 'Platformer'],
    'Northwind Studio',
    'Orbit Arcade',
  ),
  game(
    'last-orbit',
    'Last Orbit',
    'Survive on a failing space station.',
    ['Simulation', 'Strategy'],
    'Lantern Forge',
    'Nimbus Play Publishing',
    'draft',
    'partial',
    12,
  ),
  game(
    'mythic-tavern',
    'Mythic Tavern',
    'Run an inn for heroes between quests.',
    ['Simulation', 'RPG'],
    'Pixel Harbor',
    'Brightside Interactive',
    'draft',
  ),
  game(
    'retro-blaster-94',
    'Retro Blaster 94',
    'A 16-bit shooter, taken off the store.',
    ['Action'],
    'Tidal Byte',
    'Orbit Arcade',
    'hidden',
  ),
];

export interface DemoAchievement {
  key: string;
  name: string;
  description: string;
  rewardCredits: number;
}

export const DEMO_ACHIEVEMENTS: DemoAchievement[] = [
  { key: 'first_session', name: 'First Steps', description: 'Play your first session.', rewardCredits: 50 },
  { key: 'ten_sessions', name: 'Regular', description: 'Play ten sessions.', rewardCredits: 100 },
  { key: 'five_games', name: 'Explorer', description: 'Try five different games.', rewardCredits: 150 },
  { key: 'night_owl', name: 'Night Owl', description: 'Play a session after midnight.', rewardCredits: 25 },
  { key: 'marathon', name: 'Marathon', description: 'Play for three hours in one session.', rewardCredits: 200 },
  { key: 'supporter', name: 'Supporter', description: 'Subscribe to a plan.', rewardCredits: 300 },
];
