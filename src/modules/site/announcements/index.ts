/** What other areas use of announcements. */
export { activeAnnouncements, nextAnnouncementBoundary } from './queries.js';
