import type { ListBody, ListItem, paths } from '@platform-api/sdk';

export type UserRow = ListItem<ListBody<'/v1/admin/users'>>;
export type UserProfile = paths['/v1/admin/users/{id}']['get']['responses'][200]['content']['application/json'];
/** The list's query: the address holds its filters as text, checked by the service. */
export type UsersQuery = NonNullable<paths['/v1/admin/users']['get']['parameters']['query']>;
