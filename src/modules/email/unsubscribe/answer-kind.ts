/**
 * Who the unsubscribe URL is answering. A person's browser (the link followed, the page's button
 * posted) and a mail provider's RFC 8058 one-click POST get the HTML pages; an API client gets
 * JSON in the spec's shapes. A JSON body says API client; so does an Accept header that ranks JSON
 * above HTML. Anything else (no Accept, `*\/*`, a browser's `text/html,…`) keeps the pages.
 */

/** `application/json` and the `+json` family (`application/problem+json`…). */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json$/;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

const mediaTypeOf = (value: string): string => value.split(';', 1)[0]!.trim().toLowerCase();

/** The highest quality (RFC 9110 §12.4.2) the Accept header gives a type `matches` accepts; 0 when none. */
function qualityOf(accept: string, matches: (type: string) => boolean): number {
  let best = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (!matches(type)) continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(quality) && quality >= 0 && quality <= 1) best = Math.max(best, quality);
  }
  return best;
}

export function answersInJson(headers: { accept?: string | undefined; 'content-type'?: string | undefined }): boolean {
  if (headers['content-type'] !== undefined && JSON_TYPE.test(mediaTypeOf(headers['content-type']))) return true;
  const accept = headers.accept;
  if (accept === undefined || accept === '') return false;
  const json = qualityOf(accept, (type) => JSON_TYPE.test(type));
  return json > 0 && json > qualityOf(accept, (type) => HTML_TYPES.has(type));
}
