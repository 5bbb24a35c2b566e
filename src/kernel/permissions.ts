/**
 * The permission keys the service checks, each with what it allows. Every area declares its own
 * in its module.ts; the composition (src/modules/index.ts) adds them all to this interface, so
 * `PermissionKey` is exactly the keys some area declares. Roles hold these keys, `*`
 * (everything) or `<resource>.*` (every key of one resource); nothing else can be granted.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging, as `Tables` is.
export interface DeclaredPermissions {}

export type PermissionKey = keyof DeclaredPermissions & string;

function resourceOf(key: string): string {
  const dot = key.indexOf('.');
  return dot === -1 ? key : key.slice(0, dot);
}

/** The catalog the kernel holds (`kernel.permissions`), made from the areas' declarations. */
export class PermissionCatalog {
  /** Every key, sorted. */
  readonly keys: readonly PermissionKey[];
  readonly #keys: ReadonlySet<string>;
  readonly #resources: ReadonlySet<string>;

  constructor(readonly descriptions: Readonly<Record<PermissionKey, string>>) {
    this.keys = (Object.keys(descriptions) as PermissionKey[]).sort();
    this.#keys = new Set(this.keys);
    this.#resources = new Set(this.keys.map(resourceOf));
  }

  /** A key a role may hold: a catalog key, `*`, or `<known resource>.*`. */
  isGrantable(key: string): boolean {
    if (key === '*' || this.#keys.has(key)) return true;
    return key.endsWith('.*') && this.#resources.has(key.slice(0, -2));
  }
}

/** The effective permissions of one user, answering questions about keys and grants. */
export class PermissionSet {
  readonly #granted: ReadonlySet<string>;
  /** Worked out once: a held set answers every request of its holder while it is cached. */
  readonly #everything: boolean;
  readonly #wholeResources: ReadonlySet<string>;
  #effective: { catalog: PermissionCatalog; keys: PermissionKey[] } | undefined;

  constructor(granted: Iterable<string>) {
    this.#granted = new Set(granted);
    this.#everything = this.#granted.has('*');
    this.#wholeResources = new Set([...this.#granted].filter((key) => key.endsWith('.*')).map(resourceOf));
  }

  /** Does the holder have this concrete key (directly or through a wildcard)? */
  has(key: string): boolean {
    if (this.#everything || this.#granted.has(key)) return true;
    return this.#wholeResources.size > 0 && this.#wholeResources.has(resourceOf(key));
  }

  /** Does the holder cover everything a grantable key gives (so may pass it on)? */
  covers(grantable: string): boolean {
    if (grantable === '*') return this.#granted.has('*');
    if (grantable.endsWith('.*')) return this.#granted.has('*') || this.#granted.has(grantable);
    return this.has(grantable);
  }

  /** Holds any grant at all: a staff member, whatever their role. */
  isStaff(): boolean {
    return this.#granted.size > 0;
  }

  hasAny(keys: readonly string[]): boolean {
    return keys.some((key) => this.has(key));
  }

  /** The catalog keys this set grants, sorted: what `GET /v1/me/permissions` shows. Worked out once, frozen, shared. */
  effectiveKeys(catalog: PermissionCatalog): PermissionKey[] {
    if (this.#effective?.catalog !== catalog) {
      const keys = catalog.keys.filter((key) => this.has(key));
      this.#effective = { catalog, keys: Object.freeze(keys) as PermissionKey[] };
    }
    return this.#effective.keys;
  }

  /** The raw grants (with wildcards), sorted. */
  grants(): string[] {
    return [...this.#granted].sort();
  }
}

/** The `details.perm` text of a 403: several accepted keys joined with " | " (spec). */
export function permText(keys: readonly string[]): string {
  return keys.join(' | ');
}
