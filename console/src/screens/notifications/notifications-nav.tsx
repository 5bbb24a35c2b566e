import { type AreaPart, SubNav } from '../../shell/sub-nav';

const PARTS: AreaPart[] = [
  { path: '/notifications', label: 'Broadcast', readWith: ['announcements.write', 'email.send'] },
  { path: '/notifications/history', label: 'History', readWith: ['announcements.read', 'email.read'] },
];

export const NotificationsNav = () => <SubNav label="Notifications" parts={PARTS} />;
