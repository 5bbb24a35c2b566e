import { unwrap } from '@platform-api/sdk';
import { useQueries } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../api/client';

export interface Person {
  id: string;
  name: string;
}

/**
 * The people a page mentions (the staff who granted, banned or closed), by id: each read once
 * (`GET /v1/admin/users/{id}`, users.read, which the player page needs anyway) and kept a while,
 * so a timeline says "Priya Nair", not a uuid. One who cannot be read (erased) keeps a fallback.
 */
export function usePeople(ids: Array<string | null | undefined>): Map<string, Person> {
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))].sort();
  const people = useQueries({
    queries: wanted.map((id) => ({
      queryKey: ['person', id],
      queryFn: () => unwrap(api.GET('/v1/admin/users/{id}', { params: { path: { id } } })),
      staleTime: 5 * 60_000,
      retry: false,
    })),
  });
  const known = new Map<string, Person>();
  people.forEach((person, index) => {
    const id = wanted[index] as string;
    if (person.data !== undefined) {
      known.set(id, { id, name: person.data.display_name ?? person.data.email ?? 'a person without a name' });
    }
  });
  return known;
}

/** A person's name, linked to their page; `fallback` (an email the row carries) while unknown. */
export function PersonLink({
  id,
  people,
  fallback,
}: {
  id: string | null | undefined;
  people: Map<string, Person>;
  fallback?: string | null;
}) {
  if (id === null || id === undefined) return <span>{fallback ?? 'the system'}</span>;
  const person = people.get(id);
  return <Link href={`/users/${id}`}>{person?.name ?? fallback ?? 'a staff member'}</Link>;
}
