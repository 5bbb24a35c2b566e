/**
 * The fields of a small HTML form post, either encoding (RFC 8058 lets a mail provider send
 * `List-Unsubscribe=One-Click` as `application/x-www-form-urlencoded` or `multipart/form-data`).
 * Only plain text fields are read; the first value of a repeated name counts.
 */
export function parseFormBody(contentType: string, body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const add = (name: string, value: string) => {
    // `__proto__` as a field name would set the object's prototype instead of a field.
    if (name !== '__proto__' && !Object.hasOwn(fields, name)) fields[name] = value;
  };
  if (/^multipart\/form-data/i.test(contentType)) {
    const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
    const delimiter = boundary?.[1] ?? boundary?.[2];
    if (delimiter === undefined) return fields;
    for (const part of body.split(`--${delimiter}`)) {
      const headerEnd = part.search(/\r?\n\r?\n/);
      if (headerEnd < 0) continue;
      const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(part.slice(0, headerEnd))?.[1];
      if (name === undefined) continue;
      const value = part
        .slice(headerEnd)
        .replace(/^\r?\n\r?\n/, '')
        .replace(/\r?\n$/, '');
      add(name, value);
    }
    return fields;
  }
  for (const [name, value] of new URLSearchParams(body)) add(name, value);
  return fields;
}
