/** Lints openapi.json with Redocly's rules as redocly.yaml sets them; exits 1 on any problem. */
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const config = await loadConfig({ configPath: join(root, 'redocly.yaml') });
const source = readFileSync(join(root, 'openapi.json'), 'utf8');
// Problems .redocly.lint-ignore.yaml lists (each with its reason) come back marked `ignored`.
const problems = (await lintFromString({ source, absoluteRef: join(root, 'openapi.json'), config })).filter(
  (problem) => !problem.ignored,
);
for (const problem of problems) {
  const where = problem.location[0]?.pointer ?? '';
  console.log(`${problem.severity} ${problem.ruleId}: ${problem.message} ${where}`);
}
console.log(`${problems.length} problem(s)`);
process.exit(problems.length === 0 ? 0 : 1);
