import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { PERMISSIONS } from '../modules/index.js';
import { RolesService } from '../modules/roles/service.js';
import type { CommandGroup, CommandIo } from './command.js';
import { withDatabase } from './database.js';
import { CommandFailure, UsageError } from './errors.js';
import { commandWrites } from './services.js';
import { table } from './table.js';

export const ROLES_LIST_USAGE = `Usage: platform-api roles list [--json]

Lists every role by key: its name, how many users hold it now (unexpired grants) and how many
permission keys it grants. Reads only. --json prints an array of { key, name, protected,
member_count, permission_count }.`;

export const ROLES_SHOW_USAGE = `Usage: platform-api roles show <key> [--json]

Shows one role: its permission keys and everyone granted it (id, email, status, when granted,
until when, why; expired grants marked). Reads only. Exits 1 when no role has the key.`;

function rolesService(database: Parameters<typeof commandWrites>[0]): RolesService {
  return new RolesService(database.db, commandWrites(database), PERMISSIONS);
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

async function list(args: string[], io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  const roles = await withDatabase(loadConfig(io.env), 'roles list', (database) => rolesService(database).summaries(), {
    readOnly: true,
  });
  if (values.json) return void io.stdout.write(`${JSON.stringify(roles, null, 2)}\n`);
  const rows = roles.map((role) => [
    role.key,
    role.name,
    String(role.member_count),
    String(role.permission_count),
    role.protected ? 'protected' : '',
  ]);
  io.stdout.write(table(['KEY', 'NAME', 'MEMBERS', 'PERMISSIONS', ''], rows));
}

async function show(args: string[], io: CommandIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) throw new UsageError('give one role key', ROLES_SHOW_USAGE);
  const key = positionals[0]!;
  const role = await withDatabase(
    loadConfig(io.env),
    'roles show',
    (database) => rolesService(database).describe(key),
    {
      readOnly: true,
    },
  );
  if (role === undefined) throw new CommandFailure(`no role has the key "${key}" (see "platform-api roles list")`);
  const members = role.members.map((m) => ({
    user_id: m.user_id,
    email: m.email,
    status: m.status,
    granted_at: iso(m.granted_at),
    expires_at: iso(m.expires_at),
    reason: m.reason,
    expired: m.expired,
  }));
  if (values.json) {
    return void io.stdout.write(`${JSON.stringify({ ...role, members }, null, 2)}\n`);
  }
  const lines = [
    `${role.key}: ${role.name}${role.protected ? ' (protected)' : ''}`,
    ...(role.description ? [role.description] : []),
    '',
    `Permissions (${role.permissions.length}):`,
    ...role.permissions.map((permission) => `  ${permission}`),
    '',
    `Members (${members.filter((m) => !m.expired).length} active, ${members.length} granted):`,
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  if (members.length === 0) return void io.stdout.write('  (none)\n');
  const rows = members.map((m) => [
    m.user_id,
    m.email ?? '',
    m.status,
    m.granted_at ?? '',
    m.expired ? `expired ${m.expires_at}` : (m.expires_at ?? 'never'),
    m.reason ?? '',
  ]);
  io.stdout.write(table(['USER', 'EMAIL', 'STATUS', 'GRANTED', 'ENDS', 'REASON'], rows, '  '));
}

export const ROLES: CommandGroup = {
  summary: 'Staff roles, their permissions and who holds them',
  subcommands: {
    list: { summary: 'every role: key, name, member and permission counts', usage: ROLES_LIST_USAGE, run: list },
    show: { summary: "one role's permissions and members", usage: ROLES_SHOW_USAGE, run: show },
  },
};
