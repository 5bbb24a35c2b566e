import { type AreaPart, SubNav } from '../../shell/sub-nav';
import './email.css';

const read = ['email.read'];
const PARTS: AreaPart[] = [
  { path: '/email/templates', label: 'Templates', readWith: read },
  { path: '/email/campaigns', label: 'Campaigns', readWith: read },
  { path: '/email/audiences', label: 'Audiences', readWith: read },
  { path: '/email/outbox', label: 'Outbox', readWith: read },
  { path: '/email/suppressions', label: 'Suppressions', readWith: read },
  { path: '/email/waitlist', label: 'Waitlist', readWith: read },
];

/** The Email area's parts: templates, campaigns and audiences, and what delivery keeps (outbox, suppressions, waitlist). */
export const EmailNav = () => <SubNav label="Email" parts={PARTS} />;
