// Merges recorded audit pictures (lines of [action, shape] that test runs write with
// AUDIT_PICTURES_RECORD=<file>) into test/fixtures/audit-pictures.json: per action, every shape
// (shapes already there are normalised again, so a stricter or looser normalisation applies to all).
// Usage: npx tsx scripts/audit-pictures-fixture.ts <recording.jsonl>...
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { AUDIT_PICTURES_FIXTURE, runIndependent } from '../test/helpers/audit-pictures.js';

const normalised = (shape: string) => canonicalJson(runIndependent(JSON.parse(shape)));
const fixture = JSON.parse(readFileSync(AUDIT_PICTURES_FIXTURE, 'utf8')) as Record<string, string[]>;
const shapes = new Map(Object.entries(fixture).map(([action, list]) => [action, new Set(list.map(normalised))]));
for (const file of process.argv.slice(2)) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const [action, shape] = JSON.parse(line) as [string, string];
    if (!shapes.has(action)) shapes.set(action, new Set());
    shapes.get(action)!.add(normalised(shape));
  }
}
const sorted = Object.fromEntries([...shapes.keys()].sort().map((action) => [action, [...shapes.get(action)!].sort()]));
writeFileSync(AUDIT_PICTURES_FIXTURE, `${JSON.stringify(sorted, null, 2)}\n`);
// In Biome's layout, so `npm run lint` passes on the file as written.
execFileSync('npx', ['biome', 'format', '--write', AUDIT_PICTURES_FIXTURE], { stdio: 'ignore' });
