import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { DefaultedTimestamp, Json, Timestamp } from './column-types.js';

export type UserStatus = 'active' | 'banned' | 'deleted';
export type PanicLevel = 'off' | 'degraded' | 'lockdown';
export type EventKind = 'dashboard' | 'alert';

export interface UsersTable {
  id: string;
  email: string | null;
  display_name: string | null;
  provider: string | null;
  status: ColumnType<UserStatus, UserStatus | undefined, UserStatus>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
  last_seen_at: Timestamp | null;
}

export interface RolesTable {
  id: Generated<string>;
  key: string;
  name: string;
  description: string | null;
  is_protected: Generated<boolean>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface RolePermissionsTable {
  role_id: string;
  permission_key: string;
}

export interface UserRolesTable {
  user_id: string;
  role_id: string;
  granted_by: string | null;
  reason: string | null;
  expires_at: Timestamp | null;
  created_at: DefaultedTimestamp;
}

export interface AuditLogTable {
  id: Generated<string>;
  created_at: DefaultedTimestamp;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  reason: string | null;
  summary: Json;
}

export interface EventOutboxTable {
  id: Generated<number>;
  kind: EventKind;
  name: string;
  payload: Json;
  actor_id: string | null;
  request_id: string | null;
  created_at: DefaultedTimestamp;
}

export interface OpsPanicStateTable {
  singleton: Generated<boolean>;
  level: PanicLevel;
  reason: string | null;
  set_by: string | null;
  set_at: Timestamp | null;
  auto: Generated<boolean>;
}

export interface SiteSettingsTable {
  section: string;
  draft: Json;
  draft_updated_by: string | null;
  draft_updated_at: Timestamp | null;
  published_version: number | null;
  published_value: Json | null;
  published_by: string | null;
  published_at: Timestamp | null;
}

export interface SiteSettingsVersionsTable {
  section: string;
  version: number;
  value: Json;
  note: string | null;
  restored_version: number | null;
  published_by: string | null;
  published_at: DefaultedTimestamp;
}

export interface SchemaMigrationsTable {
  name: string;
  checksum: string;
  applied_at: DefaultedTimestamp;
}

export interface Tables {
  users: UsersTable;
  roles: RolesTable;
  role_permissions: RolePermissionsTable;
  user_roles: UserRolesTable;
  audit_log: AuditLogTable;
  event_outbox: EventOutboxTable;
  ops_panic_state: OpsPanicStateTable;
  site_settings: SiteSettingsTable;
  site_settings_versions: SiteSettingsVersionsTable;
  schema_migrations: SchemaMigrationsTable;
}

export type UserRow = Selectable<UsersTable>;
export type RoleRow = Selectable<RolesTable>;
export type AuditRow = Selectable<AuditLogTable>;
export type NewAuditRow = Insertable<AuditLogTable>;
