import { z } from 'zod';

/**
 * The one shape of every URL the API accepts (checkout and portal targets, links shown to
 * players): an absolute http(s) URL written in plain characters. zod's `.url()` alone is not
 * enough: it asks the WHATWG parser, which silently drops tabs, CR and LF and trims controls and
 * spaces at the ends, so `https://x/\r\nSet-Cookie: a=b` passed, was stored, and broke the
 * Location header it was later written into (a 500 after the credits were granted).
 */

/**
 * Controls (C0, DEL, C1), format characters (zero-width, bidi overrides that make a link read as
 * another) and every space or separator (U+2028/U+2029 end a line in JavaScript, NBSP hides in a
 * link). A URL that needs one writes it percent-encoded, and then says exactly what it holds.
 */
const UNSAFE_CHARACTER = /[\p{Cc}\p{Cf}\p{Z}]/u;
/** The scheme and `//` as written: the parser turns `http:x` or `http:\\x` into `http://x/`. */
const HTTP_PREFIX = /^https?:\/\/[^/]/i;

const NOT_A_URL = 'must be an absolute http(s) URL';
const UNSAFE_TEXT = 'must not contain spaces, control, format or separator characters (percent-encode them)';
const SITE_LINK = 'must be an absolute http(s) URL or a path starting with a single /';

/** Why `value` is not an absolute http(s) URL a player may be sent to; undefined when it is one. */
export function httpUrlProblem(value: string): string | undefined {
  if (UNSAFE_CHARACTER.test(value)) return UNSAFE_TEXT;
  // Browsers read a backslash as a slash: `https://game.example\@evil.example` leads to game.example
  // after parsing but shows evil.example to the reader.
  if (value.includes('\\')) return 'must not contain a backslash';
  if (!HTTP_PREFIX.test(value)) return NOT_A_URL;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return NOT_A_URL;
  }
  // `https://game.example@evil.example/` goes to evil.example while it reads as game.example.
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  return undefined;
}

/**
 * An absolute http(s) URL (OpenAPI `format: uri`); `max` is the field's bound where the spec gives one.
 * Not zod 4's `.url()`: that check trims the value and drops its tabs and line breaks before the
 * checks after it see it, so ` https://x/` would pass them and be stored trimmed. Its issue is
 * written here as `.url()` writes it.
 */
export function httpUrl(options: { max?: number } = {}) {
  const text = options.max === undefined ? z.string() : z.string().max(options.max);
  return text
    .superRefine((value, context) => {
      const parsable = URL.canParse(value);
      if (!parsable) context.addIssue({ code: 'invalid_format', format: 'url', message: NOT_A_URL });
      const problem = httpUrlProblem(value);
      // An unparsable value already has the issue above: one message is enough.
      if (problem !== undefined && !(problem === NOT_A_URL && !parsable)) {
        context.addIssue({ code: 'custom', message: problem });
      }
    })
    .meta({ format: 'uri' });
}

/** A path of this site (one leading slash), as a link opened inside the player's app; undefined when it is one. */
function sitePathProblem(value: string): string | undefined {
  if (UNSAFE_CHARACTER.test(value)) return UNSAFE_TEXT;
  // `/\evil.example` and `/%5Cevil.example` are read by browsers as `//evil.example`, another site.
  if (/\\|%5c/i.test(value)) return 'must not contain a backslash, raw or encoded';
  return /^\/(?!\/)/.test(value) ? undefined : SITE_LINK;
}

/** A link that is either an absolute http(s) URL or a path of the site (`/rewards?tab=new`). */
export function sitePathOrHttpUrl(options: { max: number }) {
  return z
    .string()
    .max(options.max)
    .superRefine((value, context) => {
      const problem = value.startsWith('/') ? sitePathProblem(value) : httpUrlProblem(value);
      if (problem === undefined) return;
      context.addIssue({ code: 'custom', message: problem === NOT_A_URL ? SITE_LINK : problem });
    });
}
