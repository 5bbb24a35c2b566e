import { runCommandLine } from './cli/command-line.js';

// The command line on this process's environment and streams; `serve` goes on serving after it returns.
const code = await runCommandLine(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
if (code !== 0) process.exit(code);
