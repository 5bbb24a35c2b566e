import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Summarises a V8 .cpuprofile (from `npm run bench -- --cpu-prof --only …`): where the service
 * spent its CPU, by function (self time and time including callees) and by file or package.
 *
 *   npx tsx bench/tools/cpu-profile-summary.ts bench/results/profiles/<run>/<file>.cpuprofile [top]
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

const root = process.cwd();

/**
 * `node_modules/<package>` for dependencies, the path inside the repo for our own code, the category for V8's own
 * nodes.
 */
function placeOf(url: string): string {
  if (url === '') return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inModules) return `node_modules/${inModules[1]}`;
  if (path.startsWith('node:')) return path;
  return relative(root, path);
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${placeOf(url)}${url ? `:${lineNumber + 1}` : ''}`;
}

function main(): void {
  const [file, topText] = process.argv.slice(2);
  if (file === undefined) throw new Error('usage: cpu-profile-summary <file.cpuprofile> [top]');
  const top = Number(topText ?? 25);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totalHits = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
  const msPerHit = (profile.endTime - profile.startTime) / 1_000 / Math.max(1, totalHits);

  const self = new Map<string, number>();
  const byPlace = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    self.set(frameName(node), (self.get(frameName(node)) ?? 0) + hits);
    const place =
      placeOf(node.callFrame.url) === '(native)' ? node.callFrame.functionName : placeOf(node.callFrame.url);
    byPlace.set(place, (byPlace.get(place) ?? 0) + hits);
  }

  // Inclusive time: a node's hits plus its subtree's, counted once per frame on each path (recursion is not double
  // counted).
  const inclusive = new Map<string, number>();
  const walk = (id: number, onPath: Set<string>): number => {
    const node = byId.get(id)!;
    let hits = node.hitCount ?? 0;
    const name = frameName(node);
    const fresh = !onPath.has(name);
    if (fresh) onPath.add(name);
    for (const child of node.children ?? []) hits += walk(child, onPath);
    if (fresh) {
      onPath.delete(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + hits);
    }
    return hits;
  };
  walk(profile.nodes[0]!.id, new Set());

  const print = (title: string, entries: Map<string, number>) => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, hits] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stdout.write(
        `${(hits * msPerHit).toFixed(0).padStart(8)} ms ${((100 * hits) / totalHits).toFixed(1).padStart(5)}%  ` +
          `${name}\n`,
      );
    }
  };
  process.stdout.write(`${file}: ${((totalHits * msPerHit) / 1_000).toFixed(1)} s sampled\n`);
  print('By file or package (self time):', byPlace);
  print('By function (self time):', self);
  print('By function (including callees):', inclusive);
}

main();
