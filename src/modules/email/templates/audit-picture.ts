import { auditPicture } from '../../../kernel/audit.js';
import type { EmailTemplatesTable, EmailTemplateVersionsTable } from '../tables.js';

/** What a template's audit rows keep: its names and which version is live, never a version's content. */
export const templatePicture = auditPicture<EmailTemplatesTable & { version: number | null }>({
  id: false,
  key: true,
  name: true,
  description: true,
  category: true,
  published_version: true,
  published_at: false,
  created_by: false,
  updated_by: false,
  created_at: false,
  updated_at: false,
  /** The version stored with the template when it is created (none: null). */
  version: true,
});

/** A version as audit rows name it: its number and subject, never its bodies. */
export const templateVersionPicture = auditPicture<EmailTemplateVersionsTable>({
  template_id: false,
  version: true,
  subject: true,
  html: false,
  text: false,
  note: false,
  created_by: false,
  created_at: false,
});
