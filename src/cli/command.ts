/** A stream a command writes to; `isTTY` where it is a terminal (a progress bar is drawn only there). */
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * What a command reads its settings from and writes to: the process's own (src/main.ts), or a
 * test's, which runs the commands in its own process.
 */
export interface CommandIo {
  env: Record<string, string | undefined>;
  stdout: OutputStream;
  stderr: OutputStream;
}

/** One command of the command line: what `--help` prints, and what it does with the arguments after its name. */
export interface Command {
  /** One line for the list of commands. */
  summary: string;
  usage: string;
  run(args: string[], io: CommandIo): Promise<void>;
}

/** Commands under one name (`roles list`, `roles show`). */
export interface CommandGroup {
  summary: string;
  subcommands: Record<string, Command>;
}

/** The usage of a group: its subcommands, each with its summary. */
export function groupUsage(name: string, group: CommandGroup): string {
  const names = Object.keys(group.subcommands);
  const width = Math.max(...names.map((sub) => sub.length));
  const lines = names.map((sub) => `  ${sub.padEnd(width)}  ${group.subcommands[sub]!.summary}`);
  return [
    `Usage: platform-api ${name} <subcommand> [options]`,
    '',
    `${group.summary}.`,
    '',
    'Subcommands:',
    ...lines,
    '',
    `Run "platform-api ${name} <subcommand> --help" for a subcommand's options.`,
  ].join('\n');
}
