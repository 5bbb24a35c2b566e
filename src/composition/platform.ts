import type { AreaModule, RouteRegistration } from '../kernel/areas/module.js';
import type { IdentityProvider } from '../adapters/identity/index.js';
import type { MailTransport } from '../adapters/mail/index.js';
import type { PaymentProvider } from '../adapters/payments/index.js';
import type { RuntimeClient } from '../adapters/runtime/index.js';
import type { StorageAdapter } from '../adapters/storage/index.js';
import type { JobHandlers } from '../kernel/areas/jobs.js';
import type { DevSignInCodes } from '../modules/console/index.js';
import type { Kernel } from '../kernel/kernel.js';
import type { RuntimeSimulator } from '../runtime-sim/simulator.js';

/** Something the platform starts after the kernel and stops before it (the incident monitor). */
export interface Startable {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Everything the service is made of, built once by the composition root (compose.ts): the kernel
 * (the request path and the write path) and the peers and parts only some areas use.
 * `Incidents` is the incident monitor (tests drive it through `.incidents`).
 */
export interface Platform<Incidents extends Startable = Startable> extends Kernel {
  identity: IdentityProvider;
  /** The payment provider: Stripe when STRIPE_SECRET_KEY is set, else the local provider. */
  payments: PaymentProvider;
  /** Mail delivery: SMTP when SMTP_URL is set, else the outbox. */
  mail: MailTransport;
  /**
   * Object storage: S3 when STORAGE_S3_BUCKET is set, else local files under STORAGE_DIR with URLs signed by this
   * service.
   */
  storage: StorageAdapter;
  /**
   * The service's own signing key (EMAIL_TOKEN_SECRET, else one kept in the database): unsubscribe links,
   * realtime tickets, account-deletion links and the local store's signed URLs. Available once started.
   */
  readonly signingKey: string;
  /** The Runtime service client; available once `start()` has resolved (it may start the simulator). */
  readonly runtime: RuntimeClient;
  /** The in-process runtime simulator of the embedded default; undefined when RUNTIME_URL is set. */
  readonly runtimeSimulator: RuntimeSimulator | undefined;
  /** Sets and clears the maintenance level from the incident rules; ticks only with INCIDENT_MONITOR on. */
  incidents: Incidents;
  /**
   * The development owner's one-time console sign-in codes: only in the embedded development mode
   * (a made-up secret, `jwtSecretSource: 'generated'`) with its owner given; undefined otherwise.
   */
  devSignIn: DevSignInCodes | undefined;
  /** Every scheduled job's handler, by key: the areas' jobs. */
  readonly jobs: JobHandlers;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A part of the platform an area may be given by name. */
export type PlatformPart = Exclude<keyof Platform, 'start' | 'stop'>;

/**
 * What an area declared it uses, and all it is given: `Deps<'db' | 'write'>` in a route file's
 * signature says at a glance what the area can touch.
 */
export type Deps<Part extends PlatformPart> = Pick<Platform, Part>;

/**
 * An area's module (`AreaModule`, src/kernel/areas/module.ts) with the parts of the platform it
 * needs named first: its route registrations must take no more than `Deps` of those parts, and
 * src/app.ts gives them exactly those.
 */
export function defineArea<const Part extends PlatformPart, const Area extends Omit<AreaModule, 'needs' | 'routes'>>(
  needs: readonly Part[],
  area: Area & { readonly routes: readonly RouteRegistration<Deps<NoInfer<Part>>>[] },
): Area & { readonly needs: readonly Part[]; readonly routes: readonly RouteRegistration[] } {
  return { ...area, needs };
}

/**
 * The named parts of the platform and nothing else. Read through, not copied: the runtime client
 * and the signing key exist only once the platform has started.
 */
export function partsOf<Part extends PlatformPart>(platform: Platform, needs: readonly Part[]): Deps<Part> {
  const parts = {};
  for (const part of needs) {
    if (!(part in platform)) throw new Error(`no part "${part}" in the platform`);
    Object.defineProperty(parts, part, { get: () => platform[part], enumerable: true });
  }
  return parts as Deps<Part>;
}
