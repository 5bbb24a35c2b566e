/** The console's areas and the permissions that let a staff member read each (any one of them). */
export interface Area {
  path: string;
  label: string;
  readWith: string[];
  /** The sidebar's heading it sits under (Home has none). */
  group?: AreaGroup;
}

/** The sidebar's groups, in order: who each serves, as Stripe's and Supabase's sidebars group theirs. */
export const AREA_GROUPS = ['Players', 'Commerce', 'Content', 'Platform'] as const;
export type AreaGroup = (typeof AREA_GROUPS)[number];

/** Where each area sits in the sidebar; an area not named here goes under Platform. */
const GROUP_OF: Record<string, AreaGroup> = {
  '/users': 'Players',
  '/support': 'Players',
  '/billing': 'Commerce',
  '/plans': 'Commerce',
  '/store': 'Commerce',
  '/catalog': 'Commerce',
  '/site': 'Content',
  '/notifications': 'Content',
  '/email': 'Content',
};

export const groupOf = (area: Area): AreaGroup | undefined =>
  area.path === '/' ? undefined : (area.group ?? GROUP_OF[area.path] ?? 'Platform');

export const AREAS: Area[] = [
  { path: '/', label: 'Home', readWith: [] },
  // Players
  { path: '/users', label: 'Users', readWith: ['users.read'] },
  { path: '/support', label: 'Support', readWith: ['support.read'] },
  // Commerce
  { path: '/billing', label: 'Billing', readWith: ['billing.read'] },
  { path: '/plans', label: 'Plans', readWith: ['plans.read'] },
  { path: '/store', label: 'Store', readWith: ['store.read'] },
  { path: '/catalog', label: 'Catalog', readWith: ['content.read'] },
  // Content
  {
    path: '/site',
    label: 'Site',
    readWith: ['site.read', 'settings.read', 'billing.read', 'content.read', 'content.write', 'announcements.read'],
  },
  // Templates, campaigns, audiences and what delivery keeps (outbox, suppressions, waitlist).
  { path: '/email', label: 'Email', readWith: ['email.read', 'email.write'] },
  // Senders (either channel), and readers of the history.
  {
    path: '/notifications',
    label: 'Notifications',
    readWith: ['announcements.write', 'email.send', 'announcements.read', 'email.read'],
  },
  // Platform
  { path: '/operations', label: 'Operations', readWith: ['ops.read', 'ops.panic', 'settings.read', 'audit.read'] },
  { path: '/runtime', label: 'Runtime', readWith: ['runtime.read'] },
  { path: '/storage', label: 'Storage', readWith: ['storage.read'] },
  { path: '/roles', label: 'Roles', readWith: ['roles.read'] },
];

export const areaVisible = (area: Area, can: (...keys: string[]) => boolean) =>
  area.readWith.length === 0 || can(...area.readWith);
