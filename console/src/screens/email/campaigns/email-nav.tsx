import { type AreaPart, SubNav } from '../../../shell/sub-nav';

// A stand-in until the Email area's own nav (../email-nav, branch email-templates) is merged: the
// same six parts, so these screens import one place and the merge swaps the import.
const read = ['email.read'];
const PARTS: AreaPart[] = [
  { path: '/email/templates', label: 'Templates', readWith: read },
  { path: '/email/campaigns', label: 'Campaigns', readWith: read },
  { path: '/email/audiences', label: 'Audiences', readWith: read },
  { path: '/email/outbox', label: 'Outbox', readWith: read },
  { path: '/email/suppressions', label: 'Suppressions', readWith: read },
  { path: '/email/waitlist', label: 'Waitlist', readWith: read },
];

export const EmailNav = () => <SubNav label="Email" parts={PARTS} />;
