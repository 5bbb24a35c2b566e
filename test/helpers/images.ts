/** The smallest byte strings each image type is recognised by (magic bytes and a little padding). */
export const IMAGE_BYTES = {
  'image/png': Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(56, 1)]),
  'image/jpeg': Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 2)]),
  'image/webp': Buffer.concat([
    Buffer.from('RIFF'),
    Buffer.from([0x38, 0, 0, 0]),
    Buffer.from('WEBPVP8 '),
    Buffer.alloc(48, 3),
  ]),
} as const;

export const TEXT_BYTES = Buffer.from('<html><script>alert(1)</script></html> definitely not an image');
