import pg from 'pg';
import { AUDIT_COUNT, AUDIT_PAGE, USERS_PAGE } from './floor-statements.js';

/**
 * The staff lists' statements run as prepared statements (decision 0106): after five executions
 * PostgreSQL may keep one generic plan, made without the values. This reads, for each list
 * statement of the soak's mix, the plan made for the values (`plan_cache_mode =
 * force_custom_plan`) and the generic one (`force_generic_plan`), each executed with `EXPLAIN
 * ANALYZE`, so a soak can tell whether the generic plan stays as good as the data grows and after
 * an ANALYZE.
 */

/** The lists' statements as the service sends them (floor-statements.ts, checked by every bench run) and the soak's values. */
const CHECKED = [
  { name: 'users list page', sql: USERS_PAGE.sql, values: [25, 0] },
  { name: 'audit list page (users.*)', sql: AUDIT_PAGE.sql, values: ['users.%', 'users', 25, 0] },
  { name: 'audit list kept count', sql: AUDIT_COUNT.sql, values: ['users.%'] },
] as const;

/** Executions per plan mode; the fastest counts (the soak's load runs beside it). */
const EXECUTIONS = 5;
/** A generic plan is as good as the custom one when it runs within this of it. */
const GENERIC_SLOWER_AT_MOST = { factor: 2, plusMs: 0.5 };

export interface PlanReading {
  statement: string;
  /** The plan's nodes, outermost first, with the index each scan uses: `Limit > Index Scan (users_created_idx) > …`. */
  customPlan: string;
  genericPlan: string;
  customMs: number;
  genericMs: number;
}

export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

export function planShape(node: PlanNode): string {
  const here = `${node['Node Type']}${node['Index Name'] ? ` (${node['Index Name']})` : node['Relation Name'] ? ` (${node['Relation Name']})` : ''}`;
  const inner = (node.Plans ?? []).map(planShape);
  return inner.length === 0 ? here : `${here} > ${inner.length === 1 ? inner[0] : `[${inner.join('; ')}]`}`;
}

async function explained(
  client: pg.Client,
  mode: 'force_custom_plan' | 'force_generic_plan',
  values: readonly (string | number)[],
): Promise<{ plan: string; ms: number }> {
  await client.query(`SET plan_cache_mode = ${mode}`);
  // EXPLAIN takes no bound parameters: the values go in as literals, typed by the prepared statement.
  const args = values.map((value) => client.escapeLiteral(String(value))).join(', ');
  let fastest = Infinity;
  let plan = '';
  for (let n = 0; n < EXECUTIONS; n += 1) {
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE plan_check(${args})`,
    );
    const [{ Plan, 'Execution Time': ms }] = rows[0]!['QUERY PLAN'];
    fastest = Math.min(fastest, ms);
    plan = planShape(Plan);
  }
  return { plan, ms: fastest };
}

/** The custom and the generic plan of each list statement, on a session of its own. */
export async function readPlans(databaseUrl: string): Promise<PlanReading[]> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench plan check' });
  await client.connect();
  try {
    const readings: PlanReading[] = [];
    for (const statement of CHECKED) {
      await client.query(`PREPARE plan_check AS ${statement.sql}`);
      const custom = await explained(client, 'force_custom_plan', statement.values);
      const generic = await explained(client, 'force_generic_plan', statement.values);
      await client.query('DEALLOCATE plan_check');
      readings.push({
        statement: statement.name,
        customPlan: custom.plan,
        genericPlan: generic.plan,
        customMs: custom.ms,
        genericMs: generic.ms,
      });
    }
    return readings;
  } finally {
    await client.end();
  }
}

/** The generic plan runs about as fast as the one made for the values. */
export function genericPlanHolds(reading: PlanReading): boolean {
  return reading.genericMs <= reading.customMs * GENERIC_SLOWER_AT_MOST.factor + GENERIC_SLOWER_AT_MOST.plusMs;
}

export const GENERIC_PLAN_BOUND = `generic ≤ ${GENERIC_SLOWER_AT_MOST.factor} × custom + ${GENERIC_SLOWER_AT_MOST.plusMs} ms`;

/** ANALYZE of the whole database, as autovacuum would after the soak's writes: its statistics made current. */
export async function analyzeDatabase(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench analyze' });
  await client.connect();
  try {
    const started = performance.now();
    await client.query('ANALYZE');
    return performance.now() - started;
  } finally {
    await client.end();
  }
}
