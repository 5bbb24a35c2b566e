import type { Campaign } from './campaign-form';

const LABELS: Record<Campaign['status'], string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  sending: 'Sending',
  paused: 'Paused',
  sent: 'Sent',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

export const STATUS_CHOICES = Object.entries(LABELS).map(([id, label]) => ({ id, label }));

const CLASSES: Partial<Record<Campaign['status'], string>> = {
  sent: 'status status-active',
  failed: 'status status-banned',
  cancelled: 'status status-deleted',
};

export const StatusBadge = ({ status }: { status: Campaign['status'] }) => (
  <span className={CLASSES[status] ?? 'status'}>{LABELS[status]}</span>
);

/** "1,200 of 50,000": messages sent of the recipients fixed at launch. */
export const sentOf = (campaign: Campaign) =>
  campaign.recipients === null
    ? 'not launched'
    : `${campaign.counts.sent.toLocaleString('en-GB')} of ${campaign.recipients.toLocaleString('en-GB')}`;
