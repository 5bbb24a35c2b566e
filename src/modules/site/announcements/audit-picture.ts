import { asInstant, asLength, auditPicture } from '../../../kernel/audit.js';
import type { AnnouncementsTable } from './tables.js';

/** What an announcement's audit rows keep: everything staff set, the body as its length. */
export const announcementPicture = auditPicture<AnnouncementsTable>({
  id: false,
  title: true,
  body: asLength('body_length'),
  severity: true,
  surface: true,
  action_url: true,
  starts_at: asInstant,
  ends_at: asInstant,
  is_active: true,
  created_by: false,
  updated_by: false,
  created_at: false,
  updated_at: false,
});
