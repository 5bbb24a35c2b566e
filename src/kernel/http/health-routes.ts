/**
 * The probes of load balancers and orchestrators. Always admitted and never counted: an instance
 * that failed them under load would be taken out and its load piled onto the others, and their
 * polling would dilute the 5xx ratio the incident rules read. Open, without rate limits, and
 * not client paths, so no maintenance level refuses them.
 */
const HEALTH_ROUTES: ReadonlySet<string> = new Set(['/health', '/health/live', '/health/ready']);

export function isHealthRoute(routePath: string | undefined): boolean {
  return routePath !== undefined && HEALTH_ROUTES.has(routePath);
}
