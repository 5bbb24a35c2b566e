/** What other areas use of storage. */
export { MAX_ATTACHMENT_BYTES, SupportAttachments } from './attachments.js';
export type { AttachmentView } from './attachments.js';
export { avatarUrl } from './avatars.js';
export { avatarUploadGrant } from './schemas.js';
export { ATTACHMENT_CONTENT_TYPES } from './tables.js';
