/** The same server, another database. */
export function databaseUrlFor(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Where CREATE/DROP DATABASE run: the URL's own database (usually `postgres`). */
export function adminUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname === '' || parsed.pathname === '/') parsed.pathname = '/postgres';
  return parsed.toString();
}
