import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../helpers/tokens.js';
import {
  type ConsoleService,
  pageProblems,
  screenshotBothSizes,
  seriousViolations,
  signInWithToken,
  staffWithRole,
  startConsoleService,
} from './harness.js';

/**
 * The console's Runtime screens in Chromium, as the demo operations staff member, against the
 * real service with its embedded runtime simulator (nodes `node-1` and `node-2` of pool
 * `default`, 4 slots each; an image pull takes 1.5 s): drain a node and end its sessions, pull an
 * image and watch it arrive, end one session, make a pool; each effect read back through the API.
 */

const SLOW = 180_000;

interface Session {
  id: string;
  user_id: string;
  node_id: string | null;
  status: string;
  end_reason: string | null;
  stopped_by: string | null;
}

describe('the staff console: Runtime', () => {
  let service: ConsoleService;
  let opsToken: string;
  let page: Page;
  const players: Array<{ id: string; email: string; token: string }> = [];
  let gameId: number;

  beforeAll(async () => {
    service = await startConsoleService();
    opsToken = await service.tokenFor('demo-operations');
    const game = await service.t.db
      .selectFrom('store_games')
      .select('id')
      .where('status', '=', 'published')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    gameId = game.id;
    for (const player of (await service.players()).slice(0, 5)) {
      players.push({ ...player, token: await signToken({ sub: player.id, email: player.email }) });
    }
    ({ page } = await service.window());
    await signInWithToken(page, service.origin, opsToken, '/admin/runtime');
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  const apiGet = async <T>(url: string): Promise<T> => {
    const answer = await service.t.request({ method: 'GET', url, token: opsToken });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json() as T;
  };
  const startSession = async (player: (typeof players)[number]) => {
    const answer = await service.t.request({
      method: 'POST',
      url: '/v1/me/sessions',
      token: player.token,
      payload: { game_id: gameId },
    });
    expect(answer.statusCode, answer.body).toBe(201);
    return (answer.json() as { session_id: string }).session_id;
  };
  const session = (id: string) => apiGet<Session>(`/v1/admin/runtime/sessions/${id}`);
  const checkPage = async (name: string) => {
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, name);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
  };

  it(
    'drains a node, told how many sessions go on, and ends them: its sessions are over, new ones start elsewhere',
    async () => {
      // Four players start: the runtime spreads them, two on each node.
      const started = [];
      for (const player of players.slice(0, 4)) started.push({ player, id: await startSession(player) });
      const placed = await Promise.all(started.map(async (each) => ({ ...each, ...(await session(each.id)) })));
      const onNode1 = placed.filter((each) => each.node_id === 'node-1');
      expect(onNode1).toHaveLength(2);

      await page.getByRole('heading', { name: 'Nodes', level: 2 }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'node-1' });
      await row.getByText('2 of 4 slots').waitFor();
      await row.getByText('ready').waitFor();
      await checkPage('runtime-nodes');

      await row.getByText('node-1').click();
      await page.getByRole('heading', { name: 'Node node-1', level: 1 }).waitFor();
      const sessions = page.getByRole('grid', { name: 'Sessions on this node' });
      for (const each of onNode1) await sessions.getByRole('link', { name: each.player.email }).waitFor();
      await checkPage('runtime-node');

      await page.getByRole('button', { name: 'Drain…' }).click();
      const dialog = page.getByRole('alertdialog');
      await dialog
        .getByText(/The 2 sessions running on it now go on until their players stop: draining ends none/)
        .waitFor();
      await dialog.getByLabel('Reason').fill('Kernel update tonight');
      await dialog.getByRole('button', { name: 'Drain node' }).click();
      await page.getByText('Node node-1 is draining').waitFor();
      await page.getByRole('button', { name: 'Undrain…' }).waitFor();
      expect((await apiGet<{ status: string }>('/v1/admin/runtime/nodes/node-1')).status).toBe('draining');

      // One player leaves by themselves; the list shows it within its refresh.
      const leaving = onNode1[0]!;
      const stopped = await service.t.request({
        method: 'POST',
        url: '/v1/me/sessions/stop',
        token: leaving.player.token,
      });
      expect(stopped.statusCode).toBe(204);
      const leftRow = sessions.getByRole('row').filter({ hasText: leaving.player.email });
      await leftRow.getByText('stopped by the player').waitFor({ timeout: 10_000 });

      // The other is ended from the node page.
      const staying = onNode1[1]!;
      const stayRow = sessions.getByRole('row').filter({ hasText: staying.player.email });
      await stayRow.getByRole('button', { name: 'End…' }).click();
      const end = page.getByRole('alertdialog');
      await end.getByText(new RegExp(`End ${staying.player.email.replace('.', '\\.')}'s session`)).waitFor();
      await end.getByRole('button', { name: 'End session' }).click();
      await stayRow.getByText('ended by staff').waitFor();

      const live = await apiGet<{ data: Session[] }>('/v1/admin/runtime/sessions?node_id=node-1&status=active');
      expect(live.data).toEqual([]);
      expect((await session(staying.id)).end_reason).toBe('staff_stopped');
      expect((await session(leaving.id)).end_reason).toBe('user_stopped');
      const node = await apiGet<{ status: string; capacity: { used: number } }>('/v1/admin/runtime/nodes/node-1');
      expect(node).toMatchObject({ status: 'draining', capacity: { used: 0 } });
      // A new session goes to the node that takes them.
      const fresh = await startSession(players[4]!);
      expect((await session(fresh)).node_id).toBe('node-2');
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );

  it(
    'pulls an image onto a node and watches it arrive',
    async () => {
      await page.goto(`${service.origin}/admin/runtime/nodes/node-2`);
      await page.getByRole('heading', { name: 'Node node-2', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Pull image…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Image').fill('games/starfall:1.4.2');
      await dialog.getByRole('button', { name: 'Start pull' }).click();
      await page.getByRole('status').filter({ hasText: 'Pulling games/starfall:1.4.2…' }).waitFor();
      await page.getByRole('progressbar', { name: 'Pulling games/starfall:1.4.2' }).waitFor();
      await page.getByRole('status').filter({ hasText: 'games/starfall:1.4.2 is ready.' }).waitFor({ timeout: 10_000 });
      const images = page.getByRole('grid', { name: 'Images on this node' });
      await images.getByRole('row').filter({ hasText: 'games/starfall:1.4.2' }).getByText('ready').waitFor();
      const node = await apiGet<{ images: Array<{ image: string; status: string }> }>('/v1/admin/runtime/nodes/node-2');
      expect(node.images).toContainEqual(expect.objectContaining({ image: 'games/starfall:1.4.2', status: 'ready' }));

      // A reference the runtime cannot find fails after its pull, with the runtime's reason.
      await page.getByRole('button', { name: 'Pull image…' }).click();
      await dialog.getByLabel('Image').fill('games/does-not-exist:1');
      await dialog.getByRole('button', { name: 'Start pull' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /games\/does-not-exist:1 failed: manifest/ })
        .waitFor({
          timeout: 10_000,
        });
      await checkPage('runtime-node-pull');
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );

  it(
    'ends one live session from the sessions list, naming the player',
    async () => {
      // A player not playing now starts a session.
      let player = players[0]!;
      for (const each of players) {
        const live = await apiGet<{ data: Session[] }>(`/v1/admin/runtime/sessions?user_id=${each.id}&status=active`);
        if (live.data.length === 0) {
          player = each;
          break;
        }
      }
      const target = await session(await startSession(player));
      expect(target.status).toBe('active');
      await page.goto(`${service.origin}/admin/runtime/sessions`);
      await page.getByRole('heading', { name: 'Game sessions', level: 2 }).waitFor();
      await page.getByRole('row').filter({ hasText: player.email }).waitFor();
      // One player's sessions, as a link from elsewhere opens them.
      await page.goto(`${service.origin}/admin/runtime/sessions?user_id=${player.id}`);
      await page.getByText('Of the player').getByRole('link', { name: player.email }).waitFor();
      await expect.poll(() => page.getByRole('grid', { name: 'Game sessions' }).getByRole('row').count()).toBe(2);
      const row = page.getByRole('row').filter({ hasText: player.email });
      await row.getByRole('link', { name: player.email }).waitFor();
      await expect(row.getByRole('link', { name: player.email }).getAttribute('href')).resolves.toBe(
        `/admin/users/${player.id}`,
      );
      // The duration ticks.
      const duration = row.locator('time.runtime-duration');
      const first = await duration.textContent();
      await expect.poll(() => duration.textContent(), { timeout: 5_000 }).not.toBe(first);
      await checkPage('runtime-sessions');

      await row.getByRole('link', { name: /./ }).nth(1).click();
      await page.getByRole('heading', { level: 1 }).filter({ hasText: player.email }).waitFor();
      await checkPage('runtime-session');
      await page.getByRole('button', { name: 'End…' }).click();
      const dialog = page.getByRole('alertdialog');
      await dialog.getByText(/whatever they had not saved in the game is lost/).waitFor();
      await dialog.getByLabel('Reason').fill('Stuck in a crashed match');
      await dialog.getByRole('button', { name: 'End session' }).click();
      await page.getByText('ended by staff').waitFor();
      const ended = await session(target.id);
      expect(ended).toMatchObject({
        status: 'ended',
        end_reason: 'staff_stopped',
        stopped_by: staffWithRole('demo-operations').id,
      });
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );

  it(
    'creates a pool, renames it, and moves a node into it',
    async () => {
      await page.goto(`${service.origin}/admin/runtime/pools`);
      await page.getByRole('heading', { name: 'Pools', level: 2 }).waitFor();
      await page.getByRole('row').filter({ hasText: 'Default pool' }).waitFor();
      await checkPage('runtime-pools');
      await page.getByRole('button', { name: 'New pool…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Id').fill('eu-west');
      await dialog.getByLabel('Name').fill('Europe west');
      await dialog.getByRole('button', { name: 'Create pool' }).click();
      await page.getByRole('heading', { name: 'Pool Europe west', level: 1 }).waitFor();
      // A second pool with the same id: the runtime's refusal shows.
      await page.goto(`${service.origin}/admin/runtime/pools`);
      await page.getByRole('button', { name: 'New pool…' }).click();
      await dialog.getByLabel('Id').fill('eu-west');
      await dialog.getByLabel('Name').fill('Again');
      await dialog.getByRole('button', { name: 'Create pool' }).click();
      await page.getByText('Could not create the pool').first().waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      await page.goto(`${service.origin}/admin/runtime/pools/eu-west`);
      await page.getByRole('button', { name: 'Edit…' }).click();
      await dialog.getByLabel('Name').fill('Europe west 1');
      await dialog.getByLabel('Description').fill('Frankfurt racks');
      await dialog.getByRole('button', { name: 'Save pool' }).click();
      await page.getByRole('heading', { name: 'Pool Europe west 1', level: 1 }).waitFor();
      await checkPage('runtime-pool');

      await page.goto(`${service.origin}/admin/runtime/nodes/node-1`);
      await page.getByRole('button', { name: 'Move to pool…' }).click();
      await dialog.getByRole('button', { name: /Pool/ }).click();
      await page.getByRole('option', { name: /Europe west 1/ }).click();
      await dialog.getByRole('button', { name: 'Move node' }).click();
      await page.getByText('node-1 moved to eu-west').waitFor();
      await page.getByRole('link', { name: 'Europe west 1' }).waitFor();

      // A node whose id holds characters an address reserves opens from the list all the same.
      service.t.kernel.runtimeSimulator!.addNode({ id: 'rack 7/slot#2', slots: 2 });
      await page.goto(`${service.origin}/admin/runtime`);
      await page.getByRole('row').filter({ hasText: 'rack 7/slot#2' }).getByText('no pool').click();
      await page.getByRole('heading', { name: 'Node rack 7/slot#2', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Move to pool…' }).click();
      await dialog.getByRole('button', { name: /Pool/ }).click();
      await page.getByRole('option', { name: /Europe west 1/ }).click();
      await dialog.getByRole('button', { name: 'Move node' }).click();
      await page.getByText('rack 7/slot#2 moved to eu-west').waitFor();

      const pool = await apiGet<{ name: string; description: string; node_ids: string[] }>(
        '/v1/admin/runtime/pools/eu-west',
      );
      expect(pool).toMatchObject({
        name: 'Europe west 1',
        description: 'Frankfurt racks',
        node_ids: ['node-1', 'rack 7/slot#2'],
      });
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );
});
