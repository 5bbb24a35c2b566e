import { FLOOR_STATEMENTS, type FloorRoute } from './floor-statements.js';
import { judgedRow, type Row } from './report.js';
import type { BenchContext } from './scenarios.js';
import { benchUuid } from './seed/fixtures.js';
import type { ServiceSettings } from './service-process.js';
import { captureStatements, type CaptureRequest, type CapturedStatement } from './statement-capture.js';

/** The requests of the database scenarios, one each, as the capture asks them. */
function captureRequests(context: BenchContext): Record<FloorRoute, CaptureRequest> {
  const token = context.adminToken;
  const achievement = benchUuid('achievement', 1);
  return {
    users: { name: 'users', expectedStatus: 200, call: { path: '/v1/admin/users?page=1&per_page=25', token } },
    audit: { name: 'audit', expectedStatus: 200, call: { path: '/v1/admin/audit?action=users.*&per_page=25', token } },
    achievement: {
      name: 'achievement',
      expectedStatus: 204,
      call: { path: '' },
      // Different each attempt, so every call writes; the scenario's values stay under the spec's 1,000,000.
      vary: (attempt) => ({
        method: 'PATCH',
        path: `/v1/admin/catalog/achievements/${achievement}`,
        token,
        body: { reward_credits: 1_000_000 - attempt },
      }),
    },
  };
}

export interface FloorSqlCheck {
  /** Routes whose captured statements differ from floor-statements.ts; empty when all match. */
  differing: FloorRoute[];
  captured: Partial<Record<FloorRoute, CapturedStatement[]>>;
  /** Why nothing was compared (the server log is not readable here, …); null when compared. */
  notChecked: string | null;
  /** The capture itself failed (a request answered otherwise, markers missing): the check failed. */
  error?: string;
}

const sorted = (texts: readonly string[]) => [...texts].sort();

/** A statement's name (or `<unnamed>`) and text, as one string to compare. */
const sent = ({ name, sql }: { name?: string; sql: string }) => `${name ?? '<unnamed>'}: ${sql}`;

/** The same names and texts (sorted: the audit list's two run at once), each sent with the extended protocol as pg does. */
function matches(route: FloorRoute, statements: CapturedStatement[]): boolean {
  const extended = statements.every((statement) => statement.protocol === 'execute');
  const texts = JSON.stringify(sorted(statements.map(sent)));
  return extended && texts === JSON.stringify(sorted(FLOOR_STATEMENTS[route].map(sent)));
}

/**
 * Captures the statements the service sends for each database scenario (a service instance of
 * its own on the bench database) and compares them with what the same-work floor sends. Run
 * before the scenarios and bulk operations, which leave background work (10,000 emails to send)
 * that would show in the capture.
 */
export async function checkFloorSql(
  databaseUrl: string,
  settings: ServiceSettings,
  context: BenchContext,
): Promise<FloorSqlCheck> {
  const requests = captureRequests(context);
  const routes = Object.keys(requests) as FloorRoute[];
  for (const route of routes) requests[route].accept = (statements) => matches(route, statements);
  let capture: Awaited<ReturnType<typeof captureStatements>>;
  try {
    capture = await captureStatements(
      databaseUrl,
      settings,
      routes.map((route) => requests[route]),
    );
  } catch (error) {
    return {
      differing: routes,
      captured: {},
      notChecked: null,
      error: error instanceof Error ? error.message : String(error),
    };
  }
  if (!capture.ok) return { differing: [], captured: {}, notChecked: capture.reason };
  const captured: FloorSqlCheck['captured'] = {};
  const differing: FloorRoute[] = [];
  for (const route of routes) {
    const statements = capture.statements.get(route) ?? [];
    captured[route] = statements;
    if (!matches(route, statements)) differing.push(route);
  }
  return { differing, captured, notChecked: null };
}

export function floorSqlRow(check: FloorSqlCheck): Row {
  let statuses: string;
  if (check.error !== undefined) statuses = `capture failed: ${check.error}`;
  else if (check.notChecked !== null) statuses = `not checked: ${check.notChecked}`;
  else if (check.differing.length === 0) statuses = 'the service sends what floor-statements.ts holds';
  else statuses = `differs: ${check.differing.join(', ')} (the captured text is printed above)`;
  return judgedRow({
    scenario: 'same-work floors: SQL still the service’s',
    target: 'same statements',
    met: check.notChecked !== null ? '-' : check.differing.length === 0 ? 'yes' : 'FAILED',
    statuses,
  });
}
