import type { AvatarContentType } from './tables.js';

/** Enough of the file to tell PNG, JPEG and WebP apart (WebP's marker ends at byte 12). */
export const SIGNATURE_BYTES = 12;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const RIFF = Buffer.from('RIFF', 'ascii');
const WEBP = Buffer.from('WEBP', 'ascii');

/**
 * The image type the first bytes announce, or null: the declared content type is what the client
 * says, the magic bytes are what the file is (a browser would sniff them the same way).
 */
export function detectImageType(start: Buffer): AvatarContentType | null {
  if (start.subarray(0, PNG.length).equals(PNG)) return 'image/png';
  if (start.subarray(0, JPEG.length).equals(JPEG)) return 'image/jpeg';
  if (start.subarray(0, 4).equals(RIFF) && start.subarray(8, 12).equals(WEBP)) return 'image/webp';
  return null;
}
