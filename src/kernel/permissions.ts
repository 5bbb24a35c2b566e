/**
 * Every permission key the service checks, with what it allows. Roles hold these keys, `*`
 * (everything) or `<resource>.*` (every key of one resource); nothing else can be granted.
 */
export const PERMISSION_CATALOG = {
  'users.read': 'List and view user accounts.',
  'users.write': 'Change user accounts: ban, unban, sign out, edit profile fields.',
  'users.delete': 'Soft- or hard-delete user accounts.',
  'roles.read': 'List roles, their permissions and the permission catalog.',
  'roles.write': 'Create, change and delete roles and their permission lists.',
  'roles.assign': 'Grant roles to users and revoke them.',
  'audit.read': 'Read the audit log.',
  'ops.read': 'Read the maintenance (panic) level and operational state.',
  'ops.panic': 'Set the maintenance (panic) level.',
  'site.read': 'Read site settings drafts, pages and announcements.',
  'site.write':
    'Edit the general, branding, seo, auth_ui, support and legal settings sections, pages and announcements.',
  'settings.read': 'Read operational settings and scheduled jobs.',
  'settings.write': 'Edit the limits and maintenance settings sections and scheduled jobs.',
  'content.read': 'Read content blocks and catalog entries.',
  'content.write': 'Edit content blocks, achievements and referral rules.',
  'store.read': 'Read store games including drafts.',
  'store.write': 'Create and edit store games.',
  'plans.read': 'Read plans, tiers and rulesets.',
  'plans.write': 'Edit plans, tiers and rulesets; migrate subscribers between prices.',
  'billing.read': 'Read billing: payments, invoices, subscriptions, coupons, credit ledger.',
  'billing.write': 'Change billing: refunds, cancellations, coupons, credit grants, billing and credits settings.',
  'email.read': 'Read email audiences, templates, campaigns and the outbox.',
  'email.write': 'Edit email audiences, templates and campaigns.',
  'email.send': 'Launch, schedule and resume campaigns; send email broadcasts.',
  'announcements.read': 'Read announcements and in-app notifications.',
  'announcements.write': 'Publish announcements and in-app notification broadcasts.',
  'runtime.read': 'Read runtime nodes, pools and game sessions.',
  'runtime.write': 'Operate runtime nodes and pools.',
  'storage.read': 'Browse stored objects.',
  'storage.write': 'Delete stored objects.',
  'support.read': 'Read support messages.',
  'support.write': 'Answer and close support messages.',
} as const satisfies Record<string, string>;

export type PermissionKey = keyof typeof PERMISSION_CATALOG;

export const PERMISSION_KEYS = Object.keys(PERMISSION_CATALOG).sort() as PermissionKey[];
const KNOWN_KEYS = new Set<string>(PERMISSION_KEYS);
const KNOWN_RESOURCES = new Set(PERMISSION_KEYS.map(resourceOf));

function resourceOf(key: string): string {
  const dot = key.indexOf('.');
  return dot === -1 ? key : key.slice(0, dot);
}

/** A key a role may hold: a catalog key, `*`, or `<known resource>.*`. */
export function isGrantableKey(key: string): boolean {
  if (key === '*' || KNOWN_KEYS.has(key)) return true;
  return key.endsWith('.*') && KNOWN_RESOURCES.has(key.slice(0, -2));
}

/** The effective permissions of one user, answering questions about keys and grants. */
export class PermissionSet {
  readonly #granted: ReadonlySet<string>;

  constructor(granted: Iterable<string>) {
    this.#granted = new Set(granted);
  }

  /** Does the holder have this concrete key (directly or through a wildcard)? */
  has(key: string): boolean {
    return this.#granted.has('*') || this.#granted.has(key) || this.#granted.has(`${resourceOf(key)}.*`);
  }

  /** Does the holder cover everything a grantable key gives (so may pass it on)? */
  covers(grantable: string): boolean {
    if (grantable === '*') return this.#granted.has('*');
    if (grantable.endsWith('.*')) return this.#granted.has('*') || this.#granted.has(grantable);
    return this.has(grantable);
  }

  hasAny(keys: readonly string[]): boolean {
    return keys.some((key) => this.has(key));
  }

  /** The catalog keys this set grants, sorted: what `GET /v1/me/permissions` shows. */
  effectiveKeys(): PermissionKey[] {
    return PERMISSION_KEYS.filter((key) => this.has(key));
  }

  /** The raw grants (with wildcards), sorted. */
  grants(): string[] {
    return [...this.#granted].sort();
  }
}

/** The `details.perm` text of a 403: several accepted keys joined with " | " (spec). */
export function permText(keys: readonly string[]): string {
  return keys.join(' | ');
}
