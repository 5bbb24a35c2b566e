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

/** How a known field's value is written: what an editor checks before saving it. */
export const FIELD_TYPES = ['text', 'long_text', 'email', 'url', 'color', 'integer', 'boolean', 'locale'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export interface KnownField {
  name: string;
  type: FieldType;
  description: string;
}

const field = (name: string, type: FieldType, description: string): KnownField => ({ name, type, description });

/**
 * The fields the platform's sites and apps read from each section, with their types: a guide for
 * editors (the console edits each as its type). The draft stays free-form, as the spec has it:
 * these are stored as given, and a field not listed here is stored and served like any other.
 * Sections that list none (credits, limits, maintenance) are read by no front end yet.
 */
export const SECTION_FIELDS: Record<SectionName, KnownField[]> = {
  general: [
    field('site_name', 'text', "The platform's name, in page titles and mail."),
    field('tagline', 'text', 'One line under the name on the landing site.'),
    field('default_locale', 'locale', 'The language a visitor without a preference sees (BCP 47, like en or pt-BR).'),
  ],
  branding: [
    field('primary_color', 'color', 'Buttons and links (#rrggbb).'),
    field('accent_color', 'color', 'Highlights and badges (#rrggbb).'),
    field('logo_text', 'text', 'The word mark, where no logo image is set.'),
    field('logo_url', 'url', 'The logo image (https).'),
  ],
  seo: [
    field('title', 'text', "The landing site's title in search results."),
    field('description', 'long_text', 'The snippet under it.'),
    field('og_image_url', 'url', 'The image shown when a link is shared (https).'),
  ],
  auth_ui: [
    field('sign_in_heading', 'text', 'The heading of the sign-in screen.'),
    field('sign_up_heading', 'text', 'The heading of the sign-up screen.'),
    field('help_url', 'url', 'Where "Trouble signing in?" leads.'),
  ],
  billing: [
    field('billing_email', 'email', 'Where players write about a charge; printed on receipts.'),
    field('invoice_footer', 'long_text', 'Text under every invoice (company details, tax note).'),
  ],
  credits: [],
  limits: [],
  support: [
    field('email', 'email', 'The support address players see.'),
    field('hours', 'text', 'When support answers, in words.'),
    field('response_time_hours', 'integer', 'The promised first answer, in hours.'),
    field('help_center_url', 'url', 'The help centre (https).'),
  ],
  legal: [
    field('company_name', 'text', 'The legal entity that runs the platform.'),
    field('company_address', 'long_text', 'Its registered address.'),
    field('terms_url', 'url', 'The terms of service, where not a site page.'),
    field('privacy_url', 'url', 'The privacy policy, where not a site page.'),
  ],
  maintenance: [],
};
