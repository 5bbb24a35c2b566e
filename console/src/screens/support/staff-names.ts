import { unwrap } from '@platform-api/sdk';
import { useQueries } from '@tanstack/react-query';
import { api } from '../../api/client';
import { sessionStore } from '../../api/session';

/**
 * Names of the staff members a ticket mentions (who replied, who closed it), read from the users
 * list when the caller may read users (`users.read`); "You" for the caller, else "Staff".
 */
export function useStaffNames(ids: Array<string | null>, canReadUsers: boolean): (id: string | null) => string {
  const me = sessionStore.get()?.subject;
  const others = [...new Set(ids.filter((id): id is string => id !== null && id !== me))];
  const users = useQueries({
    queries: others.map((id) => ({
      queryKey: ['user', id],
      queryFn: () => unwrap(api.GET('/v1/admin/users/{id}', { params: { path: { id } } })),
      enabled: canReadUsers,
      staleTime: 60_000,
    })),
  });
  const names = new Map<string, string>();
  others.forEach((id, index) => {
    const user = users[index]?.data;
    if (user !== undefined) names.set(id, user.display_name ?? user.email ?? 'Staff');
  });
  return (id) => {
    if (id === null) return 'Staff';
    if (id === me) return 'You';
    return names.get(id) ?? 'Staff';
  };
}
