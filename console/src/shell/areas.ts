/** The console's areas and the permissions that let a staff member read each (any one of them). */
export interface Area {
  path: string;
  label: string;
  readWith: string[];
}

export const AREAS: Area[] = [
  { path: '/', label: 'Home', readWith: [] },
  { path: '/users', label: 'Users', readWith: ['users.read'] },
  { path: '/roles', label: 'Roles', readWith: ['roles.read'] },
  { path: '/support', label: 'Support', readWith: ['support.read'] },
  { path: '/operations', label: 'Operations', readWith: ['ops.read', 'ops.panic', 'settings.read', 'audit.read'] },
  {
    path: '/site',
    label: 'Site',
    readWith: ['site.read', 'settings.read', 'billing.read', 'content.read', 'content.write', 'announcements.read'],
  },
  { path: '/billing', label: 'Billing', readWith: ['billing.read'] },
  // Senders (either channel), and readers of the history.
  {
    path: '/notifications',
    label: 'Notifications',
    readWith: ['announcements.write', 'email.send', 'announcements.read', 'email.read'],
  },
  // Templates, campaigns, audiences and what delivery keeps (outbox, suppressions, waitlist).
  { path: '/email', label: 'Email', readWith: ['email.read', 'email.write'] },
];

export const areaVisible = (area: Area, can: (...keys: string[]) => boolean) =>
  area.readWith.length === 0 || can(...area.readWith);
