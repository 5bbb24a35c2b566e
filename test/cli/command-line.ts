import { Writable } from 'node:stream';
import { runCommandLine } from '../../src/cli/command-line.js';
import { cliEnv, type CliRun } from './cli-process.js';

/** A stream that keeps what is written to it, as a child's piped stdout would (not a terminal). */
class Collected extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/**
 * `platform-api <args>` run in this process: the dispatcher and commands main.ts runs, on the
 * same environment `cli()` gives a child (nothing of this shell's), with stdout and stderr kept.
 * What only a process shows (its exit, signals, the lock of a live pid) stays with cli-process.ts.
 */
export async function cliInProcess(args: string[], settings: Record<string, string>): Promise<CliRun> {
  const stdout = new Collected();
  const stderr = new Collected();
  const code = await runCommandLine(args, { env: cliEnv(settings), stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
