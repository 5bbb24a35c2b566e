import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/**
 * A statement whose text is fixed by a few choices (a list's sort), built and compiled by Kysely
 * once per choice and database, then run with each request's values. Building and compiling the
 * users list's query was about a tenth of the service's CPU per page (bench profile, issue 45),
 * for a text that never changes between requests, only its values.
 *
 * The values must be the statement's parameters, in order: the first compile of each choice checks
 * it, so a builder that adds a parameter of its own fails at once instead of running with values
 * in the wrong places.
 */
export class CompiledOnce<DB, Choice extends string, Row> {
  readonly #compiled = new WeakMap<Kysely<DB>, Map<Choice, CompiledQuery<Row>>>();

  /** `build` makes the statement for these values; it runs only on a choice's first call. */
  async execute(
    db: Kysely<DB>,
    choice: Choice,
    values: readonly unknown[],
    build: () => Compilable<Row>,
  ): Promise<Row[]> {
    const kept = this.#keptFor(db);
    const compiled = kept.get(choice);
    if (compiled !== undefined) return (await db.executeQuery<Row>({ ...compiled, parameters: values })).rows;
    const first = build().compile();
    if (!sameValues(first.parameters, values)) {
      throw new Error(
        `a statement compiled once takes exactly its values as parameters: ${first.parameters.length} ` +
          `parameters for ${values.length} values in ${first.sql}`,
      );
    }
    kept.set(choice, first);
    return (await db.executeQuery(first)).rows;
  }

  #keptFor(db: Kysely<DB>): Map<Choice, CompiledQuery<Row>> {
    let kept = this.#compiled.get(db);
    if (kept === undefined) {
      kept = new Map();
      this.#compiled.set(db, kept);
    }
    return kept;
  }
}

function sameValues(parameters: readonly unknown[], values: readonly unknown[]): boolean {
  return parameters.length === values.length && parameters.every((parameter, i) => Object.is(parameter, values[i]));
}
