// tsc compiles TypeScript only; the SQL migrations are plain files the compiled service reads at run time.
import { cpSync, mkdirSync } from 'node:fs';

mkdirSync('dist/db/migrations', { recursive: true });
cpSync('src/db/migrations', 'dist/db/migrations', {
  recursive: true,
  filter: (path) => !path.endsWith('.ts'),
});
