import { detectImageType } from './image-signature.js';
import type { AttachmentContentType } from './tables.js';

/** Enough of a file to tell its type, and to check a text file's start is text. */
export const FILE_SIGNATURE_BYTES = 512;

const PDF = Buffer.from('%PDF-', 'ascii');
/** C0 controls other than tab, line feed, form feed and carriage return: no text file has them. */
const BINARY_CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f]/;

function isText(start: Buffer): boolean {
  try {
    // `stream: true`: a character cut at the end of the window is not an error.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(start, { stream: true });
    return !BINARY_CONTROL.test(text);
  } catch {
    return false;
  }
}

/**
 * The type the first bytes show, or null when they show none of the allowed ones: magic bytes
 * for images and PDFs; for text, that the start is UTF-8 without binary control characters.
 */
export function detectAttachmentType(start: Buffer): AttachmentContentType | null {
  const image = detectImageType(start);
  if (image !== null) return image;
  if (start.subarray(0, PDF.length).equals(PDF)) return 'application/pdf';
  return isText(start) ? 'text/plain' : null;
}
