import type { PermissionKey } from '../../../kernel/permissions.js';

/** Each section, in the spec's order, and the permission that may write it (operation 3). */
export const SECTION_WRITE_PERMISSION = {
  general: 'site.write',
  branding: 'site.write',
  seo: 'site.write',
  auth_ui: 'site.write',
  billing: 'billing.write',
  credits: 'billing.write',
  limits: 'settings.write',
  support: 'site.write',
  legal: 'site.write',
  maintenance: 'settings.write',
} as const satisfies Record<string, PermissionKey>;

export type SectionName = keyof typeof SECTION_WRITE_PERMISSION;
export const SECTION_NAMES = Object.keys(SECTION_WRITE_PERMISSION) as SectionName[];

/** The route admits any of these; the section's own key then decides. */
export const SETTINGS_WRITE_PERMISSIONS = ['site.write', 'billing.write', 'settings.write'] as const;
export const SETTINGS_READ_PERMISSIONS = ['site.read', 'settings.read', 'billing.read'] as const;

export function isSection(name: string): name is SectionName {
  return Object.hasOwn(SECTION_WRITE_PERMISSION, name);
}
