import type { ColumnType, Generated } from 'kysely';
import type { DefaultedJson, DefaultedTimestamp, NullableTimestamp } from '../../../db/column-types.js';

/** Table types of email campaigns (migration 0019), merged into Kysely's `Tables`. */

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'sent', 'cancelled', 'failed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export interface EmailCampaignsTable {
  id: Generated<string>;
  name: string;
  template_id: string;
  template_version: number | null;
  audience_id: string | null;
  vars: DefaultedJson;
  status: ColumnType<CampaignStatus, CampaignStatus | undefined, CampaignStatus>;
  scheduled_at: NullableTimestamp;
  max_consecutive_failures: ColumnType<number, number | undefined, number>;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  recipients: number | null;
  excluded: number | null;
  status_reason: string | null;
  launched_at: NullableTimestamp;
  /**
   * The staff member who launched it (null: not yet, or the scheduler), the owner of its Idempotency-Key (migration
   * 0033).
   */
  launched_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** The launch's Idempotency-Key and a hash of the request, when one was sent (migration 0033). */
  launch_request_key: ColumnType<string | null, string | null | undefined, string | null>;
  launch_request_fingerprint: ColumnType<string | null, string | null | undefined, string | null>;
  completed_at: NullableTimestamp;
  created_by: ColumnType<string | null, string | null, never>;
  updated_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

/** A campaign's audience and status, as the audiences area reads them (a view, migration 0061). */
export type CampaignAudiencesView = Pick<EmailCampaignsTable, 'id' | 'audience_id' | 'status' | 'created_at'>;

declare module '../../../db/tables.js' {
  interface Tables {
    /** @published (a view: a campaign's audience and status) */
    campaign_audiences: CampaignAudiencesView;
    email_campaigns: EmailCampaignsTable;
  }
}
