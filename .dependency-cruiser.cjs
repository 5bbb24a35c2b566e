/**
 * The import rules of src/ (docs/architecture.md), checked by `npm run lint:deps`.
 *
 * An area is the deepest folder under src/modules holding code (src/modules/users,
 * src/modules/billing/credits); a family (billing, email, site) is the folder above its areas,
 * and its root files (src/modules/email/render.ts) are shared by its members. Other areas reach
 * an area through its index.ts only; src/modules/index.ts composes the areas and is imported
 * by src/app.ts, src/main.ts and the tests, never by an area.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: one of these files must stop importing the next (types count too).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'kernel-imports-no-module',
      severity: 'error',
      comment:
        'The kernel, the database, the adapters, src/lib and the configuration know no area: what they need of ' +
        'one is passed in from above (the composition root, src/composition/compose.ts, gives the kernel the ' +
        "areas' permission catalogue).",
      from: { path: '^src/(kernel|db|adapters|lib)/|^src/config\\.ts$' },
      to: { path: '^src/(modules|composition)/' },
    },
    {
      name: 'areas-see-the-platform-only',
      severity: 'error',
      comment:
        'An area names the parts of the platform it needs (src/composition/platform.ts: defineArea, Deps) and is ' +
        'given those; it never builds or reaches the whole composition (compose.ts, the signal taps).',
      from: { path: '^src/modules/' },
      to: { path: '^src/composition/', pathNot: '^src/composition/platform\\.ts$' },
    },
    {
      name: 'areas-meet-through-index',
      severity: 'error',
      comment:
        "Another area is reached through its index.ts only (a file may import its own folder's files); no area " +
        'imports src/modules/index.ts, the composition.',
      from: { path: '^src/modules/([^/]+)/[^/]+$' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/[^/]+$', '^src/modules/.+/index\\.ts$'] },
    },
    {
      name: 'family-members-meet-through-index',
      severity: 'error',
      comment:
        "A family member (src/modules/billing/credits) imports its own folder's files, its family's root files " +
        '(src/modules/email/render.ts) and other areas through their index.ts only.',
      from: { path: '^src/modules/([^/]+)/([^/]+)/[^/]+$' },
      to: {
        path: '^src/modules/',
        pathNot: ['^src/modules/$1/$2/[^/]+$', '^src/modules/$1/[^/]+$', '^src/modules/.+/index\\.ts$'],
      },
    },
    {
      name: 'one-write-path',
      comment:
        'Transactions retried on a conflict are run by kernel.write (src/kernel/write.ts), with their events and ' +
        'invalidations: outside the kernel, write through it rather than through transaction-retry.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/kernel/' },
      to: { path: '/transaction-retry\\.ts$' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve would escape every rule above.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too: a circle through types is still a circle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
