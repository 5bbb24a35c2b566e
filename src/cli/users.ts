import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { findUser, findUsersByEmail } from '../modules/users/index.js';
import { RolesService } from '../modules/roles/service.js';
import { PERMISSIONS } from '../modules/index.js';
import { withDatabase } from './database.js';
import type { CommandGroup, CommandIo } from './command.js';
import { CommandFailure, UsageError } from './errors.js';
import { commandWrites, operatorActor } from './services.js';

export const GRANT_OWNER_USAGE = `Usage: platform-api users grant-owner <user id | email> [--reason "..."]

Grants the built-in owner role, without an end, to one user who exists (has signed in, or was
made by the API), found by id or by email (any case). The grant and its audit row
("users.role_grant", no actor id, the command and login@host as its user agent, --reason as its
reason, default "granted with platform-api users grant-owner") commit together. A user who
already holds the role without an end is left as is: nothing is written. An expiring owner grant
loses its end. Exits 0 when the user holds the role; 1 when no user (or more than one) matches.
A user who has never signed in: put their id in BOOTSTRAP_OWNER instead.`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_REASON = 'granted with platform-api users grant-owner';
const REASON_MAX = 500;

/** The one user `ref` names: an id, or an email no other user has. */
async function resolveUser(database: Database, ref: string): Promise<{ id: string; email: string | null }> {
  if (UUID.test(ref)) {
    const user = await findUser(database.db, ref.toLowerCase());
    if (user === undefined) throw new CommandFailure(`no user has the id ${ref}`);
    return user;
  }
  const users = await findUsersByEmail(database.db, ref, 2);
  if (users.length === 0) throw new CommandFailure(`no user has the email ${ref}`);
  if (users.length > 1) throw new CommandFailure(`more than one user has the email ${ref}: give the user's id`);
  return users[0]!;
}

async function grantOwner(args: string[], io: CommandIo): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { reason: { type: 'string' } } });
  if (positionals.length !== 1) throw new UsageError('give one user id or email', GRANT_OWNER_USAGE);
  const ref = positionals[0]!;
  if (!UUID.test(ref) && !ref.includes('@'))
    throw new UsageError(`"${ref}" is neither a user id (uuid) nor an email`, GRANT_OWNER_USAGE);
  const reason = values.reason?.trim() || DEFAULT_REASON;
  if (reason.length > REASON_MAX)
    throw new UsageError(`--reason is longer than ${REASON_MAX} characters`, GRANT_OWNER_USAGE);
  const config = loadConfig(io.env);
  const message = await withDatabase(config, 'users grant-owner', async (database) => {
    const user = await resolveUser(database, ref);
    const roles = new RolesService(database.db, commandWrites(database), PERMISSIONS);
    const result = await roles.grantOwner(operatorActor('users grant-owner'), user.id, reason);
    const who = user.email === null ? user.id : `${user.id} (${user.email})`;
    if (result.outcome === 'no_such_user') throw new CommandFailure(`no user has the id ${user.id}`);
    if (result.outcome === 'already_owner') return `${who} already holds the owner role: nothing changed.`;
    const was =
      result.previousExpiresAt === null
        ? ''
        : ` (their grant ending ${result.previousExpiresAt.toISOString()} no longer ends)`;
    return `Granted the owner role to ${who}${was}; audited as users.role_grant.`;
  });
  io.stdout.write(`${message}\n`);
}

export const USERS: CommandGroup = {
  summary: 'Users, as an operator changes them',
  subcommands: {
    'grant-owner': {
      summary: 'grant the owner role to a user (by id or email), audited',
      usage: GRANT_OWNER_USAGE,
      run: grantOwner,
    },
  },
};
