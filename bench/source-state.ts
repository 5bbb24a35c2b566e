import { execFileSync } from 'node:child_process';

/**
 * Which code the numbers belong to: the commit, and how many files differ from it (others edit
 * src/ while benchmarks run). Read-only git commands; unknown outside a git checkout.
 */
export function sourceState(): { commit: string; changedFiles: number } | 'unknown' {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const changed = git('status', '--porcelain', '--', 'src', 'package.json', 'package-lock.json');
    return { commit: git('rev-parse', 'HEAD'), changedFiles: changed === '' ? 0 : changed.split('\n').length };
  } catch {
    return 'unknown';
  }
}
