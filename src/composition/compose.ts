import type { FastifyBaseLogger } from 'fastify';
import { randomBytes } from 'node:crypto';
import { configuredEmailTokenSecret, publicBaseUrlOf, type Config } from '../config.js';
import { createMailTransport } from '../adapters/mail/create.js';
import { createStorageAdapter } from '../adapters/storage/create.js';
import { createIdentityProvider } from '../adapters/identity/create.js';
import type { IdentityProvider } from '../adapters/identity/index.js';
import { createPaymentProvider } from '../adapters/payments/create.js';
import { HttpRuntimeClient } from '../adapters/runtime/http.js';
import type { RuntimeClient } from '../adapters/runtime/index.js';
import { RuntimeSimulator, type RuntimeSimulatorOptions } from '../runtime-sim/simulator.js';
import type { Database } from '../db/database.js';
import { DevSignInCodes } from '../modules/console/index.js';
import { createKernel, type KernelOptions } from '../kernel/kernel.js';
import { storedServiceSecret } from '../kernel/service-secrets.js';
import { JOB_HANDLERS, PERMISSIONS } from '../modules/index.js';
import { catalogPriceLookup } from '../modules/billing/catalog/module.js';
import { IncidentMonitor } from '../modules/operations/incidents/module.js';
import { principalStoreOn } from '../modules/users/index.js';
import type { Platform } from './platform.js';
import { tapMail, tapPayments, tapRuntime } from './signal-taps.js';

export interface ComposeOptions extends KernelOptions {
  /** Replaces the identity provider chosen from config. */
  identity?: IdentityProvider;
  /** Where the local payment provider keeps its state across restarts (`serve` puts it in DATA_DIR). */
  localPaymentsStateFile?: string;
  /** Tunes the in-process runtime simulator (tests shorten image pulls, seed nodes). */
  runtimeSimulator?: Partial<RuntimeSimulatorOptions>;
  /** The embedded development mode's owner (`serve` keeps it in DATA_DIR): console sign-in codes sign it in. */
  devOwner?: string;
}

/**
 * The composition root: the kernel, the peers chosen by the settings (identity, payments, mail,
 * storage, runtime, with the simulator of the embedded default) and the areas' parts the platform
 * runs (jobs, the incident monitor). Nothing runs until `start()`. Async only to load the SDKs of
 * configured peers (S3, Stripe, SMTP, Redis) on demand: a start without them does not pay for them.
 */
export async function composePlatform(
  config: Config,
  database: Database,
  log: FastifyBaseLogger,
  options: ComposeOptions = {},
): Promise<Platform<IncidentMonitor>> {
  // First, so the adapters made below find their spans on.
  // The kernel imports no area: the users area's principal store is handed in, as the permission keys are.
  const kernel = await createKernel(config, database, log, PERMISSIONS, principalStoreOn(database.db), options);
  const { metrics, signals } = kernel;
  // The embedded default runs the simulator and reaches it over loopback HTTP: one code path.
  const simulator =
    config.runtimeUrl === undefined
      ? new RuntimeSimulator({ apiKey: randomBytes(24).toString('base64url'), ...options.runtimeSimulator })
      : undefined;
  let http: HttpRuntimeClient | undefined;
  let runtime: RuntimeClient | undefined;
  let signingKey = configuredEmailTokenSecret(config);
  const payments = await createPaymentProvider(config, log, {
    // The local provider charges the catalog's prices and serves its pages from this service.
    priceLookup: catalogPriceLookup(database.db),
    publicBaseUrl: () => publicBaseUrlOf(config),
    ...(options.localPaymentsStateFile !== undefined ? { stateFile: options.localPaymentsStateFile } : {}),
  });
  const mail = await createMailTransport(config, log);
  const storage = await createStorageAdapter(config, log, {
    publicBaseUrl: () => publicBaseUrlOf(config),
    // Read lazily: the signing key may come from the database once the platform has started.
    serviceKey: () => platform.signingKey,
  });
  const incidents = new IncidentMonitor({
    db: database.db,
    write: kernel.write,
    panic: kernel.panic,
    signals,
    log,
    runtime: () => runtime,
    intervalMs: config.incidentMonitor ? config.incidentEvaluateSeconds * 1_000 : 0,
  });
  const platform: Platform<IncidentMonitor> = {
    ...kernel,
    identity: options.identity ?? createIdentityProvider(config, log, metrics?.peerCalls('identity')),
    payments: tapPayments(payments, signals, metrics?.peerCalls('payments')),
    mail: tapMail(mail, signals),
    storage,
    get signingKey(): string {
      if (signingKey === undefined) throw new Error('the signing key is available once the platform has started');
      return signingKey;
    },
    get runtime(): RuntimeClient {
      if (runtime === undefined) throw new Error('the runtime client is available once the platform has started');
      return runtime;
    },
    runtimeSimulator: simulator,
    incidents,
    devSignIn:
      config.jwtSecretSource === 'generated' && options.devOwner !== undefined
        ? new DevSignInCodes(options.devOwner)
        : undefined,
    jobs: JOB_HANDLERS,
    async start() {
      await kernel.start();
      signingKey ??= await storedServiceSecret(database.db, 'email-tokens');
      const endpoint =
        simulator === undefined
          ? { baseUrl: config.runtimeUrl!, apiKey: config.runtimeApiKey! }
          : { baseUrl: await simulator.listen('127.0.0.1', 0), apiKey: simulator.apiKey };
      http = new HttpRuntimeClient({
        ...endpoint,
        connectTimeoutMs: config.runtimeConnectTimeoutMs,
        timeoutMs: config.runtimeTimeoutMs,
        log,
        meter: metrics?.peerCalls('runtime'),
      });
      runtime = tapRuntime(http, signals);
      incidents.start();
    },
    async stop() {
      await incidents.stop();
      http?.close();
      // The local payment provider writes its state file a moment after changes: write what is pending.
      (platform.payments as { flush?: () => void }).flush?.();
      await platform.mail.close();
      await platform.storage.close();
      await simulator?.close();
      await kernel.stop();
    },
  };
  return platform;
}
