import type { AttachmentView, SupportAttachments } from '../files/index.js';
import type { MessageView } from './queries.js';

/** Each message with its attachments' type, size and download URL, in the order the player gave them. */
export async function withAttachments(
  attachments: SupportAttachments,
  messages: MessageView[],
): Promise<Array<MessageView & { attachments: AttachmentView[] }>> {
  const views = await attachments.views([...new Set(messages.flatMap((message) => message.attachment_keys))]);
  return messages.map((message) => ({
    ...message,
    // A key whose upload is gone (its files were purged with an account) is listed without a file.
    attachments: message.attachment_keys.flatMap((key) => views.get(key) ?? []),
  }));
}
