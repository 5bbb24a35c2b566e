import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../api/client';
import { usePermissions } from '../api/permissions';

/** An id shortened for reading; the whole id is its title. */
const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 8)}…` : id);

/**
 * A user's email (or display name) by id, read once and cached: for screens whose rows carry only
 * the id (incident history, live events, bulk results). Without users.read, or for a user gone
 * since, the shortened id.
 */
function useUserLabel(id: string, known: string | null | undefined): string {
  const permissions = usePermissions();
  const named = known !== undefined && known !== null && known !== '';
  const user = useQuery({
    queryKey: ['user-name', id],
    enabled: !named && permissions.can('users.read'),
    staleTime: 5 * 60_000,
    retry: false,
    queryFn: () => unwrap(api.GET('/v1/admin/users/{id}', { params: { path: { id } } })),
  });
  if (named) return known;
  return user.data?.email ?? user.data?.display_name ?? `user ${shortId(id)}`;
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

/** A link to a user's page, named by their email (given, or read by id). */
export function UserLink({ id, label }: { id: string; label?: string | null }) {
  const name = useUserLabel(id, label);
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
export function ActorLink({ id, label }: { id: string | null; label?: string | null }) {
  if (id === null || id === '') return <span>the service</span>;
  return <UserLink id={id} label={label} />;
}
