import type { StoredObject } from '../../adapters/storage/index.js';
import { auditPicture } from '../../kernel/audit.js';

/**
 * What a delete's audit row keeps of a stored object (the store's answer, no table of ours): its
 * size and content type. The key is the row's target; when it was last written is the store's.
 */
export const storedObjectPicture = auditPicture<StoredObject>({
  key: false,
  size: true,
  contentType: { key: 'content_type' },
  lastModified: false,
});
