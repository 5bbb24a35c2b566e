import { escapeHtml } from '../../lib/html.js';

/**
 * The template language of email: text with `{{ path }}` placeholders, nothing else. A path is
 * dot-separated names (`user.display_name`) looked up in the message's vars; an optional default,
 * used when the value is missing or empty, follows a bar: `{{ display_name | "there" }}`. There are no loops,
 * conditions, calls or
 * includes, so a template can never run code or read anything but its vars. In HTML every value
 * is escaped; the subject and the text part take values as they are (with line breaks removed
 * from the subject, so a value cannot add a header).
 */

const PLACEHOLDER =
  /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:\|\s*"((?:[^"\\]|\\.)*)"\s*)?\}\}/g;
const MAX_PLACEHOLDERS = 500;

export type RenderTarget = 'html' | 'text' | 'subject';

export interface TemplateParts {
  subject: string;
  html: string;
  text: string;
}

export interface TemplateProblem {
  part: keyof TemplateParts;
  /** 1-based position of the offending `{{` in that part. */
  line: number;
  column: number;
  problem: string;
}

/** A var's value at `path`: strings, numbers and booleans print; anything else (objects, null, missing) is absent. */
function lookup(vars: Record<string, unknown>, path: string): string | undefined {
  let current: unknown = vars;
  for (const name of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, name))
      return undefined;
    current = (current as Record<string, unknown>)[name];
  }
  if (typeof current === 'string') return current;
  if (typeof current === 'number' || typeof current === 'boolean') return String(current);
  return undefined;
}

export function renderText(source: string, vars: Record<string, unknown>, target: RenderTarget): string {
  return source.replace(PLACEHOLDER, (_match, path: string, fallback: string | undefined) => {
    const found = lookup(vars, path);
    // An empty value takes the default too: `{{ display_name | "player" }}` for a player without a name.
    const value =
      found !== undefined && found !== '' ? found : fallback === undefined ? '' : fallback.replace(/\\(.)/g, '$1');
    if (target === 'html') return escapeHtml(value);
    if (target === 'subject') return value.replace(/[\r\n]+/g, ' ');
    return value;
  });
}

export function renderTemplate(parts: TemplateParts, vars: Record<string, unknown>): TemplateParts {
  return {
    subject: renderText(parts.subject, vars, 'subject'),
    html: renderText(parts.html, vars, 'html'),
    text: renderText(parts.text, vars, 'text'),
  };
}

/** Where a part has a `{{` that is not a well-formed placeholder, or too many placeholders; empty when all is well. */
export function templateProblems(parts: TemplateParts): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  for (const part of ['subject', 'html', 'text'] as const) {
    const source = parts[part];
    const good = new Set<number>();
    let count = 0;
    for (const match of source.matchAll(PLACEHOLDER)) {
      good.add(match.index);
      count += 1;
    }
    if (count > MAX_PLACEHOLDERS)
      problems.push({ part, line: 1, column: 1, problem: `more than ${MAX_PLACEHOLDERS} placeholders` });
    for (let at = source.indexOf('{{'); at !== -1; at = source.indexOf('{{', at + 2)) {
      if (good.has(at)) continue;
      // `{{{` before a good placeholder is a stray brace plus the placeholder; report the brace.
      const before = source.slice(0, at);
      const line = before.split('\n').length;
      problems.push({
        part,
        line,
        column: at - before.lastIndexOf('\n'),
        problem: 'expected {{ name }}, {{ a.b }} or {{ name | "default" }}',
      });
      if (problems.length >= 20) return problems;
    }
  }
  return problems;
}

/** The var names a template reads (top-level names of its paths), for previews and docs. */
export function templateVariables(parts: TemplateParts): string[] {
  const names = new Set<string>();
  for (const source of [parts.subject, parts.html, parts.text]) {
    for (const match of source.matchAll(PLACEHOLDER)) names.add(match[1]!);
  }
  return [...names].sort();
}
