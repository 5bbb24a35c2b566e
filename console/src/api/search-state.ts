import { useLocation, useSearch } from 'wouter';

/**
 * A page's filters, sort and page number kept in the address (`?status=banned&page=2`): a reload,
 * the back button and a shared link show the same list, and sign-in returns to it.
 */
export function useSearchState<Keys extends string>(keys: readonly Keys[]) {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const values = Object.fromEntries(keys.map((key) => [key, params.get(key) ?? ''])) as Record<Keys, string>;
  const set = (changes: Partial<Record<Keys, string>>) => {
    const next = new URLSearchParams(search);
    for (const [key, value] of Object.entries(changes) as [Keys, string | undefined][]) {
      if (value === undefined || value === '') next.delete(key);
      else next.set(key, value);
    }
    // A new filter starts from the first page.
    if (!('page' in changes)) next.delete('page');
    const query = next.toString();
    navigate(`${location}${query === '' ? '' : `?${query}`}`, { replace: true });
  };
  return [values, set] as const;
}

/** The query object with empty values left out (the API refuses empty strings where it takes 1+). */
export function presentValues<Values extends Record<string, string>>(values: Values): Partial<Values> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== '')) as Partial<Values>;
}
