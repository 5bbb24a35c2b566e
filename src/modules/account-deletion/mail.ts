import type { LiteralContent } from '../email/delivery/index.js';
import { GRACE_PERIOD_DAYS } from './policy.js';

/** The confirmation mail: literal content (no template to publish first), sent as transactional. */
export function confirmationMail(code: string, expiresAt: Date): LiteralContent {
  const until = `${expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
  const text = [
    'Someone (hopefully you) asked to delete your account.',
    '',
    `Your confirmation code: ${code}`,
    '',
    `It works until ${until}. Once you confirm, you can no longer sign in, your subscriptions`,
    `end with their current period, and after ${GRACE_PERIOD_DAYS} days your account and its data are erased.`,
    'If you did not ask for this, ignore this mail: nothing changes without the code.',
  ].join('\n');
  const html = `<p>Someone (hopefully you) asked to delete your account.</p>
<p>Your confirmation code: <strong>${code}</strong></p>
<p>It works until ${until}. Once you confirm, you can no longer sign in, your subscriptions end with their current \
period, and after ${GRACE_PERIOD_DAYS} days your account and its data are erased.</p>
<p>If you did not ask for this, ignore this mail: nothing changes without the code.</p>`;
  return { subject: 'Confirm the deletion of your account', html, text };
}
