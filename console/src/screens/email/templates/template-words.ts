/** Words the template screens share. */
export const NEEDS_WRITE = 'Needs email.write';

export const CATEGORIES = [
  { id: 'marketing', label: 'Marketing (unsubscribe link, never to suppressed addresses)' },
  { id: 'transactional', label: 'Transactional (receipts, security notices: sent regardless)' },
];

export const publishedLabel = (version: number | null) => (version === null ? 'not published' : `v${version} live`);

/** Names the service fills in itself when a message is made (and a preview gives sample values). */
export const SERVICE_VARIABLES = ['email', 'unsubscribe_url'];

/** The placeholder grammar of the service (src/modules/email/render.ts): `{{ a.b | "default" }}`. */
const PLACEHOLDER =
  /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:\|\s*"((?:[^"\\]|\\.)*)"\s*)?\}\}/g;

/** The variables a draft reads, as the service lists them for a stored version (sorted, each once). */
export function variablesOf(...parts: string[]): string[] {
  const names = new Set<string>();
  for (const part of parts) for (const match of part.matchAll(PLACEHOLDER)) names.add(match[1] ?? '');
  names.delete('');
  return [...names].sort();
}

/**
 * Sample values typed per variable (`player.name` → `{ player: { name } }`), as a message's vars
 * are read. A value that is JSON (an object, a list, a number) is sent as that JSON; else as text.
 */
export function sampleVars(values: Record<string, string>): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(values)) {
    if (raw === '') continue;
    let value: unknown = raw;
    if (/^\s*[[{]/.test(raw)) {
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw;
      }
    }
    const path = name.split('.');
    let holder = vars;
    for (const step of path.slice(0, -1)) {
      const next = holder[step];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) holder[step] = {};
      holder = holder[step] as Record<string, unknown>;
    }
    holder[path[path.length - 1] ?? name] = value;
  }
  return vars;
}
