/** A route's own hooks as Fastify takes them in `onRoute` (one, several, or none), as a list. */
export function hooksOf<Hook>(hooks: Hook | Hook[] | undefined): Hook[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}
