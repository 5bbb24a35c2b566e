import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Text files worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|map)$/;

/**
 * Writes a `.br` and a `.gz` copy beside every text file of the build, at the highest levels
 * (once per build, not per request), which the service sends by `Accept-Encoding`
 * (src/modules/console/app-files.ts). A copy no smaller than its file is not written.
 * Our own step rather than vite-plugin-compression2: that one declares no Vite peer range and adds
 * dependencies for what node:zlib does in a few lines.
 */
export function compressedCopies(): Plugin {
  let outDir: string | undefined;
  return {
    name: 'compressed-copies',
    apply: 'build',
    writeBundle(options) {
      outDir = options.dir;
    },
    // After the whole build is written, the files copied from public/ included.
    async closeBundle(error) {
      if (error !== undefined || outDir === undefined) return;
      const dir = outDir;
      const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name))
        .map((entry) => join(entry.parentPath, entry.name));
      let before = 0;
      let after = 0;
      await Promise.all(
        files.map(async (file) => {
          const content = await readFile(file);
          const [br, gz] = await Promise.all([
            brotli(content, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
              },
            }),
            gzipped(content, { level: constants.Z_BEST_COMPRESSION }),
          ]);
          before += content.length;
          after += Math.min(br.length, content.length);
          if (br.length < content.length) await writeFile(`${file}.br`, br);
          if (gz.length < content.length) await writeFile(`${file}.gz`, gz);
        }),
      );
      this.info(
        `compressed copies of ${files.length} files: ${(before / 1024).toFixed(1)} KB, ${(after / 1024).toFixed(1)} KB as brotli`,
      );
    },
  };
}
