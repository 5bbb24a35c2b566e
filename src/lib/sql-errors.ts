const UNIQUE_VIOLATION = '23505';
const CHECK_VIOLATION = '23514';

function sqlErrorOf(error: unknown): { code?: unknown; constraint?: unknown } | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown; constraint?: unknown }) : undefined;
}

/** A unique-index violation (of `constraint`, when given): the database's answer to a duplicate, concurrent or not. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const sqlError = sqlErrorOf(error);
  return sqlError?.code === UNIQUE_VIOLATION && (constraint === undefined || sqlError.constraint === constraint);
}

/** A check violation naming `constraint`: a CHECK, or a rule a trigger keeps and raises under that name. */
export function isCheckViolation(error: unknown, constraint: string): boolean {
  const sqlError = sqlErrorOf(error);
  return sqlError?.code === CHECK_VIOLATION && sqlError.constraint === constraint;
}
