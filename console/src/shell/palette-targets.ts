import { AREAS, type Area } from './areas';

/** One place the palette can open. */
export interface Target {
  id: string;
  /** What the option says ("Users", "ana@example.com — Ana"). */
  label: string;
  /** What kind of place it is ("Screen", "Player", "Ticket"). */
  kind: string;
  /** The console path (without /admin). */
  path: string;
}

/** Screens inside areas, besides the areas themselves: found by name too. */
const SCREENS: Area[] = [
  { path: '/operations/jobs', label: 'Scheduled jobs', readWith: ['settings.read'] },
  { path: '/operations/audit', label: 'Audit log', readWith: ['audit.read'] },
  { path: '/operations', label: 'Maintenance and incidents', readWith: ['ops.read', 'ops.panic'] },
  { path: '/site/content-blocks', label: 'Content blocks', readWith: ['content.read', 'content.write'] },
  { path: '/site/pages', label: 'Pages', readWith: ['site.read'] },
  { path: '/site/announcements', label: 'Announcements', readWith: ['site.read', 'announcements.read'] },
  { path: '/plans', label: 'Products and prices', readWith: ['plans.read'] },
  { path: '/plans/tiers', label: 'Plan tiers and rulesets', readWith: ['plans.read'] },
  { path: '/plans/migrate', label: 'Migrate plan subscribers', readWith: ['plans.read'] },
  { path: '/notifications', label: 'Broadcast a notification', readWith: ['announcements.write', 'email.send'] },
  { path: '/notifications/history', label: 'Broadcast history', readWith: ['announcements.read', 'email.read'] },
  { path: '/email/campaigns', label: 'Email campaigns', readWith: ['email.read'] },
  { path: '/email/audiences', label: 'Email audiences', readWith: ['email.read'] },
  { path: '/email/templates', label: 'Email templates', readWith: ['email.read'] },
  { path: '/email/outbox', label: 'Email outbox', readWith: ['email.read'] },
  { path: '/email/suppressions', label: 'Email suppressions', readWith: ['email.read'] },
  { path: '/email/waitlist', label: 'Waitlist', readWith: ['email.read'] },
  { path: '/runtime/pools', label: 'Runtime pools', readWith: ['runtime.read'] },
  { path: '/runtime/sessions', label: 'Game sessions', readWith: ['runtime.read'] },
  { path: '/store/genres', label: 'Store genres', readWith: ['store.read'] },
  { path: '/store/developers', label: 'Store developers', readWith: ['store.read'] },
  { path: '/store/publishers', label: 'Store publishers', readWith: ['store.read'] },
  { path: '/catalog', label: 'Achievements', readWith: ['content.read'] },
  { path: '/catalog/referral-rules', label: 'Referral rules', readWith: ['content.read'] },
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Payment-provider ids (Stripe's and the local provider's prefixes) and our own uuids. */
const PROVIDER_ID = /^(pi|ch|in|cs|re|py|sub|cus)_[A-Za-z0-9_]+$/;

export const isUuid = (text: string) => UUID.test(text.trim());
export const looksLikeEmail = (text: string) => text.includes('@');

/** Screens whose name holds the text, among those the staff member may read. */
export function screenTargets(text: string, can: (...keys: string[]) => boolean): Target[] {
  const wanted = text.trim().toLowerCase();
  const all = [...AREAS, ...SCREENS].filter((area) => area.readWith.length === 0 || can(...area.readWith));
  const seen = new Set<string>();
  return all
    .filter((area) => wanted === '' || area.label.toLowerCase().includes(wanted))
    .filter((area) => !seen.has(area.path) && seen.add(area.path))
    .map((area) => ({ id: `screen:${area.path}`, label: area.label, kind: 'Screen', path: area.path }));
}

/**
 * Ids the palette cannot check itself but the payments list finds: a uuid or a provider id opens
 * the payments list searched for it (`q` matches a payment's id or the provider's, exactly).
 */
export function billingTargets(text: string, can: (...keys: string[]) => boolean): Target[] {
  const id = text.trim();
  if (!can('billing.read') || !(UUID.test(id) || PROVIDER_ID.test(id))) return [];
  return [
    {
      id: `payments:${id}`,
      label: `Payments matching ${id}`,
      kind: 'Payment',
      path: `/billing/payments?q=${encodeURIComponent(id)}`,
    },
  ];
}
