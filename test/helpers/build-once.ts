import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OncePerSources {
  /** Names the builds in the temp directory: `<prefix><hash>`. */
  prefix: string;
  /** Files and directories whose content decides the build. */
  inputs: string[];
  /** A file inside a finished build (relative to it). */
  marker: string;
  /** Builds into the (empty) directory given. */
  build(outDir: string): void;
}

/**
 * A build shared by every test file that needs it: one per content of its sources, kept in the temp
 * directory under their hash, so forks and later runs reuse it. Built aside and renamed into place:
 * two forks building at once both succeed, one rename wins, and no reader ever sees a half-written
 * build. Readers must not change the directory.
 */
export function buildOncePerSources(what: OncePerSources): string {
  const hash = sourcesHash(what.inputs);
  const outDir = join(tmpdir(), `${what.prefix}${hash}`);
  if (existsSync(join(outDir, what.marker))) return outDir;
  const staging = mkdtempSync(join(tmpdir(), `${what.prefix}staging-`));
  what.build(staging);
  try {
    renameSync(staging, outDir);
    removeOlderBuilds(what.prefix, hash);
  } catch (error) {
    // Another fork's build of the same sources got there first: use it.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(outDir, what.marker))) throw error;
  }
  return outDir;
}

function sourcesHash(inputs: string[]): string {
  const hash = createHash('sha256');
  for (const input of inputs) {
    if (!existsSync(input)) continue;
    if (statSync(input).isFile()) {
      hash.update(input).update(readFileSync(input));
      continue;
    }
    const files = readdirSync(input, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .sort();
    for (const file of files) hash.update(file).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Builds of earlier sources go after a day: not at once, since another checkout's run on this
 * machine may be using its own build right now.
 */
function removeOlderBuilds(prefix: string, current: string): void {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of readdirSync(tmpdir())) {
    const path = join(tmpdir(), name);
    if (name.startsWith(prefix) && !name.endsWith(current) && statSync(path).mtimeMs < dayAgo) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}
