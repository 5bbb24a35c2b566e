import type { FastifyInstance } from 'fastify';
import type { Kernel } from '../kernel.js';
import { installHttpMetrics } from './http.js';
import { MetricsListener } from './listener.js';

/**
 * With METRICS_PORT set: the request hooks, and the metrics listener, started when the app is
 * ready (before it listens, so a port in use stops the start) and closed with it. Unset:
 * nothing at all, no hook on the request path and no port.
 */
export function installMetrics(app: FastifyInstance, kernel: Kernel): void {
  const { metrics } = kernel;
  const port = kernel.config.metricsPort;
  if (metrics === undefined || port === undefined) return;
  installHttpMetrics(app, metrics);
  const listener = new MetricsListener(metrics.registry, kernel.log);
  app.addHook('onReady', async () => {
    const host = kernel.config.metricsHost;
    await listener.listen(port, host);
    kernel.log.info(
      { metrics: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics` },
      'metrics listening',
    );
  });
  app.addHook('onClose', () => listener.close());
}
