import { auditPicture } from '../../../kernel/audit.js';
import type { EmailCampaignsTable } from './tables.js';

/**
 * What a campaign's audit rows keep: what staff set and where it stands. Never the launch's
 * Idempotency-Key fingerprint; the launch's counts go to the row's extra.
 */
export const campaignPicture = auditPicture<EmailCampaignsTable & { template_key: string }>({
  id: false,
  name: true,
  template_id: true,
  /** The template as staff name it in a create or edit body. */
  template_key: true,
  template_version: false,
  audience_id: true,
  vars: true,
  status: true,
  scheduled_at: false,
  max_consecutive_failures: true,
  consecutive_failures: false,
  recipients: false,
  excluded: false,
  status_reason: false,
  launched_at: false,
  launched_by: false,
  launch_request_key: false,
  launch_request_fingerprint: false,
  completed_at: false,
  created_by: false,
  updated_by: false,
  created_at: false,
  updated_at: false,
});
