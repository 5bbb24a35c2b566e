/** A message's states (the outbox's `status`), in words. */
export const STATUSES = [
  { id: 'queued', label: 'Queued' },
  { id: 'sending', label: 'Sending' },
  { id: 'sent', label: 'Sent' },
  { id: 'failed', label: 'Failed' },
  { id: 'skipped', label: 'Skipped (suppressed)' },
  { id: 'cancelled', label: 'Cancelled' },
];

const TONE: Record<string, string> = {
  sent: 'status status-active',
  failed: 'status status-banned',
  cancelled: 'status status-deleted',
  skipped: 'status status-deleted',
};

export function MessageStatus({ status, held }: { status: string; held: boolean }) {
  return (
    <span className={TONE[status] ?? 'status'}>
      {status}
      {held ? ' (held)' : ''}
    </span>
  );
}
