/**
 * How a command fails. main.ts turns each into one message on stderr and exit status 1:
 * a usage error adds the command's usage, a configuration error names its setting.
 */

/** Arguments the command cannot run with: the message, then the command's usage. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

/** A start that failed on what a setting points at (a server that does not answer, an address in use). */
export class StartError extends Error {
  constructor(setting: string, problem: string) {
    super(`${setting}: ${problem}`);
  }
}

/** A command that ran and could not do what it was asked (an unknown user, a role that does not exist). */
export class CommandFailure extends Error {}
