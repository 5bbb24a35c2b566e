import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../api/client';
import { usePermissions } from '../api/permissions';

/** An id shortened for reading; the whole id is its title. */
const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 8)}…` : id);

/**
 * One user's profile by id, read once and kept a few minutes: the query the user page reads
 * (`['user', id]`), so every name on screen follows an edit there. Without users.read, nothing is
 * asked.
 */
export function useUser(id: string | null | undefined) {
  const permissions = usePermissions();
  return useQuery({
    queryKey: ['user', id],
    enabled: typeof id === 'string' && id !== '' && permissions.can('users.read'),
    staleTime: 5 * 60_000,
    retry: false,
    queryFn: () => unwrap(api.GET('/v1/admin/users/{id}', { params: { path: { id: id ?? '' } } })),
  });
}

/** How a person is named: players by email (what staff search by), staff by their name. */
type Naming = 'email' | 'name';

/**
 * A user's label: the one the row carries (`label`), else read by id; `fallback` (or the shortened
 * id) while unknown, without users.read, or for a user gone since.
 */
function useUserLabel(id: string, label: string | null | undefined, naming: Naming, fallback?: string | null) {
  const given = label !== undefined && label !== null && label !== '';
  const user = useUser(given ? undefined : id);
  if (given) return label;
  const data = user.data;
  const read =
    data === undefined
      ? undefined
      : naming === 'name'
        ? (data.display_name ?? data.email)
        : (data.email ?? data.display_name);
  return read ?? fallback ?? (user.isLoading ? '…' : `user ${shortId(id)}`);
}

/**
 * A link to a user's or role's page. In a table row that opens something itself (the audit log's
 * entry), pressing the link follows the link only: the row never starts its own press.
 */
function NameLink({ href, id, children }: { href: string; id: string; children: string }) {
  return (
    <Link href={href} className="name-link" title={id} onPointerDown={(event) => event.stopPropagation()}>
      {children}
    </Link>
  );
}

/**
 * A link to a user's page, named by the label given or read by id. A caller who may not read
 * users gets the name as text: a link would lead to a refusal.
 */
export function UserLink({
  id,
  label,
  naming = 'email',
  fallback,
}: {
  id: string;
  label?: string | null;
  naming?: Naming;
  fallback?: string | null;
}) {
  const permissions = usePermissions();
  const name = useUserLabel(id, label, naming, fallback);
  if (!permissions.can('users.read')) return <span title={id}>{name}</span>;
  return (
    <NameLink href={`/users/${id}`} id={id}>
      {name}
    </NameLink>
  );
}

/** A link to a role's page, named by its name (or its key). */
export function RoleLink({ id, name }: { id: string; name: string }) {
  return (
    <NameLink href={`/roles/${id}`} id={id}>
      {name}
    </NameLink>
  );
}

/**
 * What an audit entry or event acted on: a user or role by name with its link; a user or role
 * gone since (no name) by its type and shortened id; anything else by type and id.
 */
export function TargetName({ type, id, label }: { type: string | null; id: string | null; label: string | null }) {
  if (type === null) return null;
  if (id !== null && label !== null && type === 'user') return <UserLink id={id} label={label} />;
  if (id !== null && label !== null && type === 'role') return <RoleLink id={id} name={label} />;
  return (
    <span>
      {type} {id === null ? null : <code title={id}>{shortId(id)}</code>}
      {type === 'user' || type === 'role' ? <span className="muted"> (gone)</span> : null}
    </span>
  );
}

/** Who did something: a staff member's link, or the service itself (a job, incident monitoring). */
export function ActorLink({ id, label, naming }: { id: string | null; label?: string | null; naming?: Naming }) {
  if (id === null || id === '') return <span>the service</span>;
  return <UserLink id={id} label={label} naming={naming} />;
}
