import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, in percent.
 * V8's own choice (up to 4× the kept heap) follows the allocation rate, so a fast instance ran its
 * staff lists' garbage up to 315 MB of RSS against issue 45's 250; at 50 % the staff lists' bench
 * scenarios peaked at 176 MB instead of 290 (docs/decisions/0108-heap-growth-policy.md, with its CPU).
 */
export const HEAP_GROWING_PERCENT = 50;

const FLAG = '--heap-growing-percent';

/**
 * Applies the serving process's heap policy, unless the operator set the flag on node's command
 * line (`node --heap-growing-percent=0 dist/main.js serve` gives V8 its own choice back). V8 reads
 * the setting at each full collection, so setting it once the process runs takes effect.
 */
export function applyHeapPolicy(execArgv: readonly string[] = process.execArgv): boolean {
  // V8 takes its flags with dashes or underscores.
  const named = (argument: string) => argument.replaceAll('_', '-').split('=')[0] === FLAG;
  if (execArgv.some(named)) return false;
  setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
  return true;
}
