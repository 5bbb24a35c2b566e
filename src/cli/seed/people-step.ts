import { PERMISSIONS } from '../../modules/index.js';
import { RolesService } from '../../modules/roles/service.js';
import { UserLifecycleService } from '../../modules/users/lifecycle.js';
import { staffActor, type SeedContext } from './context.js';
import { DEMO_OWNER, DEMO_ROLES, DEMO_STAFF } from './people.js';
import { everAudited, holdsRole, insertMissingUsers, roleIdByKey } from './queries.js';

const DAY_MS = 86_400_000;

/**
 * Staff and players as users, the demo roles, and each staff member's grant. The owner grant is
 * the operator's (as `users grant-owner` makes it); the others are the owner's, through the
 * roles service like the console's bulk grant.
 */
export async function seedPeople(context: SeedContext): Promise<void> {
  const { platform, tally, players } = context;
  const db = platform.db;
  const staffMade = await insertMissingUsers(db, DEMO_STAFF, context.now);
  tally.created('staff members', staffMade);
  tally.existing('staff members', DEMO_STAFF.length - staffMade);
  const playersMade = await insertMissingUsers(db, players, context.now);
  tally.created('players', playersMade);
  tally.existing('players', players.length - playersMade);

  const roles = new RolesService(db, platform.write, PERMISSIONS);
  const owner = await roles.grantOwner(
    { userId: null, requestId: null, ip: null, userAgent: context.userAgent },
    DEMO_OWNER.id,
    'demo data set (platform-api seed --demo)',
  );
  tally.count('role grants', owner.outcome === 'granted');

  const actor = staffActor(context, DEMO_OWNER.email);
  for (const role of DEMO_ROLES) {
    const exists = (await roleIdByKey(db, role.key)) !== undefined;
    if (!exists)
      await roles.create(actor, {
        key: role.key,
        name: role.name,
        description: role.description,
        permissions: role.permissions,
      });
    tally.count('roles', !exists);
  }

  for (const staff of DEMO_STAFF.filter((member) => member.role !== 'owner')) {
    const roleId = (await roleIdByKey(db, staff.role))!;
    const held = await holdsRole(db, staff.id, roleId);
    if (!held) {
      const expiresAt =
        staff.expiresInDays === undefined
          ? undefined
          : new Date(context.now.getTime() + staff.expiresInDays * DAY_MS).toISOString();
      const { results } = await roles.bulkAssign(actor, {
        user_ids: [staff.id],
        role_key: staff.role,
        action: 'grant',
        reason: staff.expiresInDays === undefined ? 'joined the team' : 'covering support for two months',
        ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
      });
      if (!results[0]?.ok) throw new Error(`could not grant ${staff.role} to ${staff.email}: ${results[0]?.error}`);
    }
    tally.count('role grants', !held);
  }
}

const BAN_REASON = 'Cheating in Vortex Arena (reported by players)';

/**
 * Two players banned by the admin once they have played and paid (the last step before the mail
 * goes out), as the console would: the status filter and the unban flow have someone to show. Only with the local identity provider: a real one (GoTrue) has no
 * account for a demo player to ban. Keyed on the ban's audit row, so an unbanned demo player
 * stays unbanned.
 */
export async function banTroublemakers(context: SeedContext): Promise<void> {
  const { platform, tally, players } = context;
  if (platform.identity.kind !== 'local') {
    tally.skipped('banned players', 'the identity provider is GoTrue: it has no demo accounts to ban');
    return;
  }
  const lifecycle = new UserLifecycleService(platform.db, platform.identity, platform.write, platform.log);
  for (const player of players.slice(-2)) {
    const banned = await everAudited(platform.db, 'users.ban', player.id);
    tally.count('banned players', !banned);
    if (!banned) await lifecycle.ban(staffActor(context, 'marcus.admin.demo@example.com'), player.id, BAN_REASON);
  }
}
