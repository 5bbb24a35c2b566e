import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleService,
  pageProblems,
  SIZES,
  screenshotBothSizes,
  seriousViolations,
  signInWithToken,
  startConsoleService,
} from './harness.js';

/**
 * The console's Store and Catalog areas in Chromium, as the demo content editor (store.* and
 * content.*): a genre made and renamed, a game made with it and a developer picked by name,
 * published and seen in the public store, edited, its genre deleted, the game deleted; an
 * achievement made, edited and deleted; the referral rules replaced. Every effect is read back
 * through the API; axe and screenshots at both sizes on each screen.
 */

const SLOW = 180_000;

describe('the staff console: Store and Catalog', () => {
  let service: ConsoleService;
  let token: string;
  let page: Page;

  beforeAll(async () => {
    service = await startConsoleService();
    token = await service.tokenFor('demo-content-editor');
    ({ page } = await service.window());
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  const apiGet = async (url: string, expected = 200) => {
    const answer = await service.t.request({ method: 'GET', url, token });
    expect(answer.statusCode, answer.body).toBe(expected);
    return answer.json();
  };
  const publicGet = async (url: string, expected = 200) => {
    const answer = await service.t.request({ method: 'GET', url });
    expect(answer.statusCode, answer.body).toBe(expected);
    return answer.json();
  };
  /** axe finds nothing serious, the page does not scroll sideways at 390 px, and both screenshots. */
  const check = async (name: string) => {
    expect(await seriousViolations(page)).toEqual([]);
    // Toasts of earlier steps would cover the screen in the screenshots.
    const dismiss = page.getByRole('button', { name: 'Dismiss' });
    while ((await dismiss.count()) > 0) await dismiss.first().click();
    await page.setViewportSize(SIZES.phone);
    await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(SIZES.phone.width);
    await screenshotBothSizes(page, name);
  };

  it('makes a genre, a game with it and a developer, publishes it to the public store, edits it, deletes the genre and the game', async () => {
    await signInWithToken(page, service.origin, token, '/admin/store/genres');
    await page.getByRole('heading', { name: 'Genres', level: 2 }).waitFor();
    await expect(
      page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Store' }).isVisible(),
    ).resolves.toBe(true);
    await page.getByRole('row', { name: 'Action', exact: true }).waitFor();

    // A genre: created (its slug made from the name), then renamed (its slug kept).
    await page.getByRole('button', { name: 'New genre…' }).click();
    let dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Deck Builder');
    await dialog.getByRole('button', { name: 'Create genre' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /Deck Builder/ });
    await row.getByRole('button', { name: 'Rename…' }).click();
    dialog = page.getByRole('dialog');
    // A name taken (any case) shows beneath the name, and goes once the name changes.
    await dialog.getByLabel('Name').fill('action');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('genre name taken: action').waitFor();
    await dialog.getByLabel('Name').fill('Deckbuilder');
    await expect(dialog.getByText('genre name taken: action').count()).resolves.toBe(0);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /Deckbuilder/ }).waitFor();
    const [genre] = (await apiGet('/v1/admin/store/genres?q=deck')).data;
    expect(genre).toMatchObject({ name: 'Deckbuilder', slug: 'deck-builder', game_count: 0 });
    await check('store-genres');

    // A game: a draft with the genre and a developer, each picked by name.
    await page.getByRole('navigation', { name: 'Store' }).getByRole('link', { name: 'Games' }).click();
    await page.getByRole('heading', { name: 'Games', level: 2 }).waitFor();
    // Rows name the genres and developers a game links to.
    const starfall = page.getByRole('row').filter({ hasText: 'Starfall Raiders' });
    await starfall.getByText('Lantern Forge').waitFor();
    await expect(starfall.textContent()).resolves.toContain('Action');
    await check('store-games');
    await page.getByRole('button', { name: 'New game…' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('Title').fill('Moonlit Harbor');
    await expect(dialog.getByLabel('Slug').inputValue()).resolves.toBe('moonlit-harbor');
    await dialog.getByText('Deckbuilder', { exact: true }).click();
    await dialog.getByText('Pixel Harbor', { exact: true }).click();
    await dialog.getByText('Chosen: Deckbuilder').waitFor();
    await dialog.getByLabel('Summary').fill('Trade cards by lantern light.');
    await dialog.getByLabel('Required age').fill('7');
    await dialog.getByLabel('Metadata (JSON object)').fill('{"engine": ');
    await dialog.getByText(/^Not valid JSON/).waitFor();
    await expect(dialog.getByRole('button', { name: 'Create game' }).isDisabled()).resolves.toBe(true);
    await dialog.getByLabel('Metadata (JSON object)').fill('{"engine": "Godot"}');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, 'store-game-new');
    await dialog.getByRole('button', { name: 'Create game' }).click();
    await page.getByRole('heading', { name: 'Moonlit Harbor', level: 1 }).waitFor();
    const gameId = Number(page.url().split('/').pop());
    const developers = (await apiGet('/v1/admin/store/developers?q=pixel%20harbor')).data;
    const created = await apiGet(`/v1/admin/store/games/${gameId}`);
    expect(created).toMatchObject({
      slug: 'moonlit-harbor',
      status: 'draft',
      summary: 'Trade cards by lantern light.',
      required_age: 7,
      metadata: { engine: 'Godot' },
      genre_ids: [genre.id],
      developer_ids: [developers[0].id],
      publisher_ids: [],
    });
    await page.getByRole('link', { name: 'Deckbuilder' }).waitFor();
    await page.getByRole('link', { name: 'Pixel Harbor' }).waitFor();
    await publicGet('/v1/public/store/games/moonlit-harbor', 404);

    // Published: the public store lists it with its genre and developer.
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published (in the store)').waitFor();
    const listed = (await publicGet('/v1/public/store/games?q=moonlit')).data;
    expect(listed).toEqual([
      expect.objectContaining({
        slug: 'moonlit-harbor',
        title: 'Moonlit Harbor',
        genres: [expect.objectContaining({ name: 'Deckbuilder', slug: 'deck-builder' })],
        developers: [expect.objectContaining({ name: 'Pixel Harbor' })],
      }),
    ]);
    await check('store-game');

    // Edited: a slug taken by another game shows beneath the slug; the change sent is only what changed.
    await page.getByRole('button', { name: 'Edit…' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('Slug').fill('starfall-raiders');
    await dialog.getByLabel('Summary').fill('Trade cards by lantern light, now with a harbour market.');
    await dialog.getByLabel('Website').fill('https://moonlit.example');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByText('slug taken: starfall-raiders').waitFor();
    await dialog.getByLabel('Slug').fill('moonlit-harbor');
    await expect(dialog.getByText('slug taken: starfall-raiders').count()).resolves.toBe(0);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'https://moonlit.example' }).waitFor();
    const shown = await publicGet('/v1/public/store/games/moonlit-harbor');
    expect(shown).toMatchObject({
      summary: 'Trade cards by lantern light, now with a harbour market.',
      website: 'https://moonlit.example',
    });

    // The genre list links to its games; deleting the genre says the game loses the link, and it does.
    await page.goto(`${service.origin}/admin/store/genres?q=deck`);
    const genreRow = page.getByRole('row', { name: /Deckbuilder/ });
    // Its games: the games list filtered by the genre, named in the filter.
    await genreRow.getByRole('link', { name: '1 game' }).click();
    await page.getByRole('heading', { name: 'Games', level: 2 }).waitFor();
    expect(new URL(page.url()).searchParams.get('genre_id')).toBe(String(genre.id));
    await page.getByRole('button', { name: /Deckbuilder.*Genre|Genre.*Deckbuilder/ }).waitFor();
    await page.getByText('1 in all').waitFor();
    await expect(page.getByRole('row').filter({ hasText: 'Moonlit Harbor' }).count()).resolves.toBe(1);
    await page.goBack();
    await genreRow.getByRole('button', { name: 'Delete…' }).click();
    let confirm = page.getByRole('alertdialog', { name: 'Delete the genre Deckbuilder?' });
    await confirm.getByText(/1 game loses its link to Deckbuilder and stays in the store/).waitFor();
    await confirm.getByRole('button', { name: 'Delete genre' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByText('No genre matches “deck”.').waitFor();
    expect((await apiGet(`/v1/admin/store/games/${gameId}`)).genre_ids).toEqual([]);
    expect((await publicGet('/v1/public/store/games/moonlit-harbor')).genres).toEqual([]);

    // Deleted: the confirmation says what goes; then the admin and the public store no longer have it.
    await page.goto(`${service.origin}/admin/store/games/${gameId}`);
    await page.getByRole('heading', { name: 'Moonlit Harbor', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete…' }).click();
    confirm = page.getByRole('alertdialog', { name: 'Delete Moonlit Harbor?' });
    await confirm.getByText(/leaves the public store at once/).waitFor();
    await confirm.getByText(/This cannot be undone/).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Delete game' }).click();
    await page.getByRole('heading', { name: 'Games', level: 2 }).waitFor();
    await apiGet(`/v1/admin/store/games/${gameId}`, 404);
    await publicGet('/v1/public/store/games/moonlit-harbor', 404);
    expect(pageProblems(page)).toEqual([]);
  }, 120_000);

  it('makes, edits and deletes an achievement, and replaces the referral rules', async () => {
    await page.goto(`${service.origin}/admin/catalog`);
    await page.getByRole('heading', { name: 'Achievements', level: 2 }).waitFor();
    await page.getByRole('row', { name: /First Steps/ }).waitFor();

    await page.getByRole('button', { name: 'New achievement…' }).click();
    let dialog = page.getByRole('dialog');
    // A key taken shows beneath the key.
    await dialog.getByLabel('Key').fill('first_session');
    await dialog.getByLabel('Name').fill('Harbour Master');
    await dialog.getByLabel('Reward (credits)').fill('40');
    await dialog.getByRole('button', { name: 'Create achievement' }).click();
    await dialog.getByText('The key first_session is taken by another achievement.').waitFor();
    await dialog.getByLabel('Key').fill('harbour_master');
    await dialog.getByLabel('Description').fill('Trade at every harbour.');
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Create achievement' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /Harbour Master/ });
    await row.waitFor();
    const [made] = (await apiGet('/v1/admin/catalog/achievements?q=harbour_master')).data;
    expect(made).toMatchObject({
      key: 'harbour_master',
      name: 'Harbour Master',
      description: 'Trade at every harbour.',
      reward_credits: 40,
      is_active: true,
    });
    await check('catalog-achievements');

    await row.getByRole('button', { name: 'Edit…' }).click();
    dialog = page.getByRole('dialog');
    await expect(dialog.getByLabel('Name').inputValue()).resolves.toBe('Harbour Master');
    await dialog.getByLabel('Reward (credits)').fill('75');
    await dialog.getByLabel('Description').fill('');
    await dialog.getByText('Active: players can earn it').click();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: 'Harbour Master' }).getByText('inactive').waitFor();
    expect(await apiGet(`/v1/admin/catalog/achievements/${made.id}`)).toMatchObject({
      key: 'harbour_master',
      reward_credits: 75,
      description: null,
      is_active: false,
    });

    await page
      .getByRole('row', { name: /Harbour Master/ })
      .getByRole('button', { name: 'Delete…' })
      .click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete the achievement Harbour Master?' });
    await confirm.getByText(/a game that awards this key finds nothing to award/).waitFor();
    await confirm.getByLabel('Reason').fill('Replaced by the harbour questline');
    await confirm.getByRole('button', { name: 'Delete achievement' }).click();
    await confirm.waitFor({ state: 'detached' });
    await apiGet(`/v1/admin/catalog/achievements/${made.id}`, 404);

    // Referral rules: an active programme that rewards nobody is refused, in words; then saved.
    await page.getByRole('navigation', { name: 'Catalog' }).getByRole('link', { name: 'Referral rules' }).click();
    await page.getByRole('heading', { name: 'Referral rules', level: 2 }).waitFor();
    const before = await apiGet('/v1/admin/catalog/referral-rules');
    await page.getByRole('button', { name: 'Change rules…' }).click();
    dialog = page.getByRole('dialog');
    if (!(await dialog.getByRole('switch').isChecked())) await dialog.getByText('Programme active').click();
    await dialog.getByLabel('Inviting player gets (credits)').fill('0');
    await dialog.getByLabel('Invited player gets (credits)').fill('0');
    await dialog.getByRole('button', { name: 'Save rules' }).click();
    await dialog.getByText(/must reward the referrer or the referee/).waitFor();
    await dialog.getByLabel('Inviting player gets (credits)').fill('250');
    await dialog.getByLabel('Invited player gets (credits)').fill('100');
    await dialog.getByLabel('Within days of signing up').fill('30');
    await dialog.getByRole('button', { name: 'Qualifies when the invited player' }).click();
    await page.getByRole('option', { name: 'Completes a first payment' }).click();
    expect(await seriousViolations(page)).toEqual([]);
    // Someone else saves first: the form says so, and a second save replaces theirs.
    const theirs = await service.t.request({
      method: 'PUT',
      url: '/v1/admin/catalog/referral-rules',
      token,
      payload: {
        referrer_reward_credits: 10,
        referee_reward_credits: 10,
        qualifying_event: 'signup',
        is_active: true,
        expected_version: before.version,
      },
    });
    expect(theirs.statusCode, theirs.body).toBe(200);
    await dialog.getByRole('button', { name: 'Save rules' }).click();
    await dialog
      .getByText(`Someone saved the rules while you edited them (now version ${before.version + 1})`, { exact: false })
      .waitFor();
    await dialog.getByRole('button', { name: 'Save rules' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('250 credits per qualified referral').waitFor();
    // Named, and not a link: the content editor may not read users.
    await page.getByText('you (tomas.editor.demo@example.com)').waitFor();
    await expect(page.getByRole('link', { name: 'you (tomas.editor.demo@example.com)' }).count()).resolves.toBe(0);
    expect(await apiGet('/v1/admin/catalog/referral-rules')).toMatchObject({
      referrer_reward_credits: 250,
      referee_reward_credits: 100,
      qualifying_event: 'first_purchase',
      qualify_within_days: 30,
      is_active: true,
      version: before.version + 2,
    });
    await check('catalog-referral-rules');
    expect(pageProblems(page)).toEqual([]);
  }, 90_000);
});
