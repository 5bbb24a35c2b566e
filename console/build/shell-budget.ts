import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/**
 * Fails the build when the shell (the entry chunk and every chunk it imports statically: what the
 * first load fetches before any screen) passes its budget of gzipped JavaScript. Screens are
 * imported dynamically and count only when opened.
 */
export function shellBudget(limitBytes: number): Plugin {
  return {
    name: 'shell-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map(
        Object.values(bundle)
          .filter((output) => output.type === 'chunk')
          .map((chunk) => [chunk.fileName, chunk]),
      );
      const shell = new Set<string>();
      const visit = (fileName: string) => {
        if (shell.has(fileName)) return;
        shell.add(fileName);
        for (const imported of chunks.get(fileName)?.imports ?? []) visit(imported);
      };
      for (const chunk of chunks.values()) if (chunk.isEntry) visit(chunk.fileName);
      const bytes = [...shell].reduce((sum, fileName) => sum + gzipSync(chunks.get(fileName)?.code ?? '').length, 0);
      const summary = `shell: ${(bytes / 1024).toFixed(1)} KB of JavaScript gzipped (budget ${(limitBytes / 1024).toFixed(0)} KB)`;
      if (bytes > limitBytes) this.error(`${summary}: load more of it when a screen opens`);
      this.info(summary);
    },
  };
}
