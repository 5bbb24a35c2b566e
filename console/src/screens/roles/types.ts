import type { ListBody, ListItem, paths } from '@platform-api/sdk';

export type Role = ListItem<ListBody<'/v1/admin/roles'>>;
export type RoleDetail = paths['/v1/admin/roles/{id}']['get']['responses'][200]['content']['application/json'];
