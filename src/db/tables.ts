import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { DefaultedJson, DefaultedTimestamp, Json, NullableTimestamp, Timestamp } from './column-types.js';

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
  tier: string | null;
  metadata: DefaultedJson;
  status_reason: string | null;
  status_changed_at: NullableTimestamp;
  status_changed_by: string | null;
  deleted_at: NullableTimestamp;
  tokens_valid_after: NullableTimestamp;
  locale: string | null;
  timezone: string | null;
  profile_updated_at: NullableTimestamp;
  /** The storage key of the current avatar (migration 0023). */
  avatar_key: string | null;
}

/**
 * Migration 0048's view: what the users area publishes of a user for other areas to read (who a
 * row names, their status, tier, avatar and token cut-off). Others join it, never `users` itself.
 */
export interface UserDirectoryView {
  id: string;
  email: string | null;
  display_name: string | null;
  status: UserStatus;
  created_at: Date;
  tier: string | null;
  avatar_key: string | null;
  tokens_valid_after: Date | null;
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

/** Migration 0049's views: what the roles area publishes of its roles and grants for others to read. */
export interface RoleDirectoryView {
  id: string;
  key: string;
  name: string;
}

export interface RoleGrantsView {
  user_id: string;
  role_id: string;
  expires_at: Date | null;
  /** Migration 0055's columns: who granted the role, why and when. */
  granted_by: string | null;
  reason: string | null;
  created_at: Date;
}

/** Migration 0055's view: the permission keys of each role (wildcards as stored). */
export interface RolePermissionKeysView {
  role_id: string;
  permission_key: string;
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

export type PanicLevelView = Pick<OpsPanicStateTable, 'level'>;

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

export interface ServiceSecretsTable {
  name: string;
  secret: string;
  created_at: DefaultedTimestamp;
}

/**
 * The tables every area shares the types of. Each names its owner, the one area that writes it
 * (`kernel`: src/kernel and src/db); others call the owner's service or queries through its
 * index.ts, or read a view the owner marks `@published`. `npm run lint:deps` checks it
 * (scripts/check-table-owners.ts).
 */
export interface Tables {
  /** @owner kernel */
  service_secrets: ServiceSecretsTable;
  /** @owner users */
  users: UsersTable;
  /** @owner users @published (a view: what other areas read of a user) */
  user_directory: UserDirectoryView;
  /** @owner roles */
  roles: RolesTable;
  /** @owner roles */
  role_permissions: RolePermissionsTable;
  /** @owner roles */
  user_roles: UserRolesTable;
  /** @owner roles @published (a view: a role's id, key and name) */
  role_directory: RoleDirectoryView;
  /** @owner roles @published (a view: who holds which role, until when) */
  role_grants: RoleGrantsView;
  /** @owner roles @published (a view: which permission keys a role carries) */
  role_permission_keys: RolePermissionKeysView;
  /** @owner kernel */
  audit_log: AuditLogTable;
  /** @owner kernel */
  event_outbox: EventOutboxTable;
  /** @owner operations/maintenance */
  ops_panic_state: OpsPanicStateTable;
  /** @owner operations/maintenance @published (a view: the maintenance level alone) */
  panic_level: PanicLevelView;
  /** @owner site/settings */
  site_settings: SiteSettingsTable;
  /** @owner site/settings */
  site_settings_versions: SiteSettingsVersionsTable;
  /** @owner kernel */
  schema_migrations: SchemaMigrationsTable;
  /** @owner billing (the family: checkout records subscriptions from the provider, subscriptions ends them) */
  billing_subscriptions: BillingSubscriptionsTable;
  /** @owner billing @published (a view: a user's subscription as their detail and segments read it) */
  subscription_directory: SubscriptionDirectoryView;
  /** @owner login-sessions */
  revoked_sessions: RevokedSessionsTable;
  /** @owner login-sessions @published (a view: which sessions of a user were ended one by one) */
  session_revocations: SessionRevocationsView;
  /** @owner users */
  erased_users: ErasedUsersTable;
}

export type UserRow = Selectable<UsersTable>;
export type RoleRow = Selectable<RolesTable>;
export type AuditRow = Selectable<AuditLogTable>;
export type NewAuditRow = Insertable<AuditLogTable>;

export type BillingSubscriptionStatus =
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'paused';

/** A player's plan subscription at the payment provider (billing writes it; users read it). */
export interface BillingSubscriptionsTable {
  id: Generated<string>;
  user_id: string;
  provider: string;
  provider_subscription_id: string;
  product_id: string | null;
  provider_price_id: string | null;
  status: BillingSubscriptionStatus;
  cancel_at_period_end: Generated<boolean>;
  current_period_end: NullableTimestamp;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

/** Migration 0056's view: what the billing family publishes of a subscription for other areas to read. */
export interface SubscriptionDirectoryView {
  id: string;
  user_id: string;
  provider: string;
  status: BillingSubscriptionStatus;
  product_id: string | null;
  provider_price_id: string | null;
  cancel_at_period_end: boolean;
  current_period_end: Date | null;
  created_at: Date;
}

/** Ids of hard-deleted accounts (0029): their leftover tokens are refused, never recreate a user. */
export interface ErasedUsersTable {
  id: string;
  erased_at: DefaultedTimestamp;
}

export interface RevokedSessionsTable {
  user_id: string;
  session_id: string;
  revoked_at: DefaultedTimestamp;
  revoked_by: string | null;
}

/** Migration 0053's view: what login-sessions publishes of its revocations (a device's refresh checks it). */
export interface SessionRevocationsView {
  user_id: string;
  session_id: string;
}
