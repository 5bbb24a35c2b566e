import { daysAgo, type SeededRandom } from './random.js';

/**
 * The demo's people: staff with fixed ids, emails and roles (the console's browser tests sign in
 * as them: `platform-api token --sub <id> --email <email>`), and players drawn from name lists.
 * Every demo address is at example.com (reserved: no mail to it reaches anyone).
 */

export interface DemoRole {
  key: string;
  name: string;
  description: string;
  permissions: string[];
}

/** Roles besides the built-in owner, from broad to narrow. */
export const DEMO_ROLES: DemoRole[] = [
  {
    key: 'demo-admin',
    name: 'Administrator',
    description: 'Runs the platform day to day: everything but roles and the maintenance switch.',
    permissions: [
      'users.*',
      'store.*',
      'content.*',
      'site.*',
      'announcements.*',
      'plans.*',
      'billing.*',
      'support.*',
      'email.*',
      'runtime.*',
      'settings.*',
      'storage.*',
      'audit.read',
      'roles.read',
      'ops.read',
    ],
  },
  {
    key: 'demo-support-agent',
    name: 'Support agent',
    description: 'Answers support tickets; reads player accounts; grants credits as a compensation.',
    permissions: ['support.read', 'support.write', 'users.read', 'billing.grant'],
  },
  {
    key: 'demo-content-editor',
    name: 'Content editor',
    description: 'Edits pages, content blocks, announcements and store listings.',
    permissions: [
      'content.read',
      'content.write',
      'site.read',
      'site.write',
      'announcements.read',
      'announcements.write',
      'store.read',
      'store.write',
    ],
  },
  {
    key: 'demo-billing',
    name: 'Billing manager',
    description: 'Products, prices, subscriptions and credits.',
    permissions: ['billing.read', 'billing.write', 'plans.read', 'plans.write', 'users.read'],
  },
  {
    key: 'demo-marketing',
    name: 'Marketing',
    description: 'Email audiences, templates and campaigns, and broadcasts (in-app and email).',
    permissions: ['email.read', 'email.write', 'email.send', 'announcements.write', 'users.read'],
  },
  {
    key: 'demo-operations',
    name: 'Operations',
    description: 'Runtime nodes, pools and game sessions, the object store, incidents and the audit log.',
    permissions: [
      'runtime.read',
      'runtime.write',
      'storage.read',
      'storage.write',
      'users.read',
      'ops.read',
      'audit.read',
      'settings.read',
    ],
  },
];

export interface DemoStaff {
  id: string;
  email: string;
  displayName: string;
  /** 'owner', or a key of DEMO_ROLES. */
  role: string;
  /** A grant that ends this many days after the seed ran (temporary cover). */
  expiresInDays?: number;
}

const staffId = (n: number) => `de000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export const DEMO_STAFF: DemoStaff[] = [
  { id: staffId(1), email: 'olivia.owner.demo@example.com', displayName: 'Olivia Hart', role: 'owner' },
  { id: staffId(2), email: 'marcus.admin.demo@example.com', displayName: 'Marcus Lee', role: 'demo-admin' },
  { id: staffId(3), email: 'priya.support.demo@example.com', displayName: 'Priya Nair', role: 'demo-support-agent' },
  { id: staffId(4), email: 'tomas.editor.demo@example.com', displayName: 'Tomas Rivera', role: 'demo-content-editor' },
  { id: staffId(5), email: 'hannah.billing.demo@example.com', displayName: 'Hannah Becker', role: 'demo-billing' },
  { id: staffId(6), email: 'yuki.marketing.demo@example.com', displayName: 'Yuki Tanaka', role: 'demo-marketing' },
  { id: staffId(7), email: 'sam.ops.demo@example.com', displayName: 'Sam Okafor', role: 'demo-operations' },
  {
    id: staffId(8),
    email: 'lena.support.demo@example.com',
    displayName: 'Lena Fischer',
    role: 'demo-support-agent',
    expiresInDays: 60,
  },
];

/** Who the seed acts as where a service needs a signed-in staff member: the demo owner. */
export const DEMO_OWNER = DEMO_STAFF[0]!;

export interface DemoPlayer {
  id: string;
  email: string;
  displayName: string;
  locale: string;
  timezone: string;
  provider: string;
  createdAt: Date;
  lastSeenAt: Date;
}

const FIRST_NAMES = [
  'Ana',
  'Ben',
  'Chloe',
  'Diego',
  'Elif',
  'Farah',
  'Gustav',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemi',
  'Liam',
  'Mila',
  'Noah',
  'Oskar',
  'Paula',
  'Quinn',
  'Rosa',
  'Sven',
  'Talia',
  'Umar',
  'Vera',
  'Wen',
  'Xavier',
  'Yara',
  'Zoe',
  'Amara',
  'Bruno',
  'Carmen',
  'Dmitri',
  'Emma',
  'Felix',
  'Greta',
  'Hugo',
  'Isla',
  'Jae',
];
const LAST_NAMES = [
  'Silva',
  'Meyer',
  'Dubois',
  'Garcia',
  'Yilmaz',
  'Haddad',
  'Lindqvist',
  'Sato',
  'Costa',
  'Weber',
  'Adeyemi',
  'Murphy',
  'Novak',
  'Cohen',
  'Berg',
  'Rossi',
  'Kelly',
  'Moreno',
  'Nilsson',
  'Levi',
  'Khan',
  'Popescu',
  'Zhang',
  'Laurent',
  'Mendes',
  'Schmidt',
  'Okoro',
  'Ricci',
  'Lopez',
  'Ivanova',
];
const LOCALES: Array<[locale: string, timezone: string]> = [
  ['en', 'Europe/London'],
  ['en', 'America/New_York'],
  ['de', 'Europe/Berlin'],
  ['fr', 'Europe/Paris'],
  ['es', 'Europe/Madrid'],
  ['pt-BR', 'America/Sao_Paulo'],
  ['ja', 'Asia/Tokyo'],
  ['sv', 'Europe/Stockholm'],
];
const PROVIDERS = ['email', 'email', 'google', 'google', 'github', 'discord'];

const ascii = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();

/** `count` players, the same ones every run; the first is always Ana Silva (ana.silva.demo@example.com). */
export function demoPlayers(random: SeededRandom, now: Date, count: number): DemoPlayer[] {
  const players: DemoPlayer[] = [];
  const taken = new Set<string>();
  for (let n = 0; players.length < count; n++) {
    const first = n === 0 ? 'Ana' : random.pick(FIRST_NAMES);
    const last = n === 0 ? 'Silva' : random.pick(LAST_NAMES);
    const email = `${ascii(first)}.${ascii(last)}.demo@example.com`;
    if (taken.has(email)) continue;
    taken.add(email);
    const [locale, timezone] = random.pick(LOCALES);
    const age = random.int(3, 200);
    const createdAt = daysAgo(random, now, age);
    players.push({
      id: staffId(0x1000 + players.length + 1),
      email,
      displayName: `${first} ${last}`,
      locale,
      timezone,
      provider: random.pick(PROVIDERS),
      createdAt,
      lastSeenAt: daysAgo(random, now, random.int(0, Math.min(age - 1, 30))),
    });
  }
  return players;
}
