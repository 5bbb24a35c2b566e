import type { JobHandler, JobHandlers } from './jobs.js';
import type { ZodApp } from '../http/zod-app.js';

/**
 * Registers routes of an area on the app, given the parts of the platform the area declared it
 * needs (src/composition/platform.ts: `Deps<'db' | 'write'>`) and no others.
 */
export type RouteRegistration<Deps = never> = (app: ZodApp, deps: Deps) => void;

/**
 * One area of the service (a folder of src/modules holding code) as its module.ts describes it.
 * The composition, src/modules/index.ts, lists every area: src/app.ts registers their routes in
 * that order (the OpenAPI document's), their jobs make the scheduler's registry and their
 * permission keys the catalogue.
 */
export interface AreaModule {
  /** Its folder under src/modules: 'users', 'billing/credits'. */
  readonly name: string;
  /** The parts of the platform its routes are given, by name ('db', 'write', 'payments'): all they can touch. */
  readonly needs: readonly string[];
  /** Its route registrations, in order. */
  readonly routes: readonly RouteRegistration[];
  /**
   * The OpenAPI tags it declares, with what each groups. A tag several areas' routes use
   * (`billing`, `public`) is declared by one of them.
   */
  readonly tags: Readonly<Record<string, string>>;
  /** Its scheduled jobs' handlers by job key; a migration seeds each job's row (key, cron, description). */
  readonly jobs: Readonly<Record<string, JobHandler>>;
  /**
   * The permission keys it declares (`<resource>.<action>`), with what each allows. A resource
   * several areas check (`billing`, `email`, `site`) is declared by one of them.
   */
  readonly permissions: Readonly<Record<`${string}.${string}`, string>>;
  /** The change-bus topics its writes invalidate: every instance's caches of them drop what they hold. */
  readonly cacheTopics: readonly string[];
  /** The names of the events it publishes (dashboard events and alerts). */
  readonly events: readonly string[];
}

/** The permission keys the areas of a union declare. */
export type DeclaredPermissionKey<Area> = Area extends { readonly permissions: infer Keys }
  ? keyof Keys & string
  : never;

/** Every area's jobs in one registry; a key two areas claim fails the start. */
export function jobsOf(areas: readonly AreaModule[]): JobHandlers {
  const jobs: Record<string, JobHandler> = {};
  for (const area of areas)
    for (const [key, handler] of Object.entries(area.jobs)) {
      if (Object.hasOwn(jobs, key)) throw new Error(`job "${key}" of ${area.name} is another area's already`);
      jobs[key] = handler;
    }
  return jobs;
}

/** Every area's permission keys with what each allows; a key two areas declare fails the start. */
export function permissionsOf<const Areas extends readonly AreaModule[]>(
  areas: Areas,
): Readonly<Record<DeclaredPermissionKey<Areas[number]>, string>> {
  const permissions: Record<string, string> = {};
  for (const area of areas)
    for (const [key, description] of Object.entries(area.permissions)) {
      if (Object.hasOwn(permissions, key)) throw new Error(`permission "${key}" of ${area.name} is declared twice`);
      permissions[key] = description;
    }
  return permissions as Record<DeclaredPermissionKey<Areas[number]>, string>;
}

/** The OpenAPI document's tags, in the areas' order; a tag two areas declare fails the start. */
export function tagsOf(areas: readonly AreaModule[]): Array<{ name: string; description: string }> {
  const tags = new Map<string, string>();
  for (const area of areas)
    for (const [name, description] of Object.entries(area.tags)) {
      if (tags.has(name)) throw new Error(`tag "${name}" of ${area.name} is declared twice`);
      tags.set(name, description);
    }
  return [...tags].map(([name, description]) => ({ name, description }));
}
