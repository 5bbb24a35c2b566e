const UNIQUE_VIOLATION = '23505';

/** A unique-index violation (of `constraint`, when given): the database's answer to a duplicate, concurrent or not. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: violated } = error as { code?: unknown; constraint?: unknown };
  return code === UNIQUE_VIOLATION && (constraint === undefined || violated === constraint);
}
