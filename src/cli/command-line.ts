import { ConfigError, redactSecrets } from '../config.js';
import { AUDIT } from './audit-export.js';
import { groupUsage, type Command, type CommandGroup, type CommandIo } from './command.js';
import { CONFIG } from './config-check.js';
import { DB } from './db-status.js';
import { CommandFailure, StartError, UsageError } from './errors.js';
import { MIGRATE_USAGE, migrateCommand } from './migrate.js';
import { ROLES } from './roles.js';
import { RUNTIME_SIM_USAGE, runtimeSimulatorCommand } from './runtime-sim.js';
import { SERVE_USAGE, serveCommand } from './serve.js';
import { SEED_USAGE, seedCommand } from './seed.js';
import { TOKEN_USAGE, tokenCommand } from './token.js';
import { USERS } from './users.js';

/** Every command, in the order the usage lists them; a group's subcommands follow its name (`roles list`). */
const COMMANDS: Record<string, Command | CommandGroup> = {
  serve: {
    summary: 'migrate the database and serve the API (default)',
    usage: SERVE_USAGE,
    run: (_, io) => serveCommand(io),
  },
  migrate: {
    summary: 'apply pending database migrations and exit',
    usage: MIGRATE_USAGE,
    run: (_, io) => migrateCommand(io),
  },
  token: { summary: 'mint an HS256 access token from the configured secret', usage: TOKEN_USAGE, run: tokenCommand },
  'runtime-sim': {
    summary: 'serve the runtime simulator alone (the Runtime HTTP API, in memory)',
    usage: RUNTIME_SIM_USAGE,
    run: runtimeSimulatorCommand,
  },
  config: CONFIG,
  db: DB,
  users: USERS,
  roles: ROLES,
  audit: AUDIT,
  seed: { summary: 'write the demo data set (--demo), idempotently', usage: SEED_USAGE, run: seedCommand },
};

function mainUsage(): string {
  const lines: Array<[string, string]> = [];
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if ('run' in entry) lines.push([name, entry.summary]);
    else
      for (const [sub, command] of Object.entries(entry.subcommands)) lines.push([`${name} ${sub}`, command.summary]);
  }
  const width = Math.max(...lines.map(([name]) => name.length));
  return [
    'Usage: platform-api <command> [options]',
    '',
    'Commands:',
    ...lines.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    'Settings come from the environment; see README "Configuration". Every command exits 0 when it',
    'did what it was asked and 1 otherwise (a usage error, an invalid setting, a failure), with',
    'one message on stderr.',
    'Run "platform-api <command> --help" for a command\'s options.',
  ].join('\n');
}

/** The command `argv` names, and the arguments after its name; a usage error for a name that is none. */
function commandOf(argv: string[]): { command: Command; args: string[] } {
  const [name = 'serve', ...rest] = argv;
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) throw new UsageError(`unknown command "${name}"`, mainUsage());
  if ('run' in entry) return { command: entry, args: rest };
  const [sub, ...args] = rest;
  const usage = groupUsage(name, entry);
  const command = sub !== undefined && Object.hasOwn(entry.subcommands, sub) ? entry.subcommands[sub] : undefined;
  if (command !== undefined) return { command, args };
  if (sub === '--help' || sub === '-h') return { command: { summary: '', usage, run: async () => {} }, args: [sub] };
  throw new UsageError(
    sub === undefined ? `"${name}" needs a subcommand` : `unknown subcommand "${name} ${sub}"`,
    usage,
  );
}

async function dispatch(argv: string[], io: CommandIo): Promise<void> {
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') return void io.stdout.write(`${mainUsage()}\n`);
  const { command, args } = commandOf(argv);
  if (args.includes('--help') || args.includes('-h')) return void io.stdout.write(`${command.usage}\n`);
  await command.run(args, io);
}

/** Commands whose unexpected failures have always read "Start failed:" (they start something). */
const STARTING = new Set(['serve', 'migrate', 'token', 'runtime-sim', undefined]);

/** One line (usage errors add the usage), and never a configured credential, whatever the error quoted. */
function failureMessage(error: unknown, command: string | undefined): string {
  if (error instanceof ConfigError) return `Configuration error: ${error.message}\n`;
  if (error instanceof UsageError) return `${error.message}\n\n${error.usage}\n`;
  if (error instanceof TypeError && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    return `${error.message}\n`;
  }
  if (error instanceof CommandFailure) return `${command}: ${error.message}\n`;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof StartError || STARTING.has(command)) return `Start failed: ${message}\n`;
  return `${command} failed: ${message}\n`;
}

/**
 * Runs `platform-api <argv>`: the exit status it ends with, 0 once the command did what it was
 * asked (`serve`: once it serves), or 1 after one message on stderr.
 */
export async function runCommandLine(argv: string[], io: CommandIo): Promise<number> {
  try {
    await dispatch(argv, io);
    return 0;
  } catch (error) {
    const command =
      argv[0] !== undefined && Object.hasOwn(COMMANDS, argv[0]) && !('run' in COMMANDS[argv[0]]!)
        ? `${argv[0]} ${argv[1] ?? ''}`.trim()
        : argv[0];
    io.stderr.write(redactSecrets(failureMessage(error, command), io.env));
    return 1;
  }
}
