import type { CompiledQuery, KyselyPlugin, QueryId } from 'kysely';

/** The shape name each query built with `preparedByShape` asked for, by the id Kysely gives each query. */
const shapeNames = new WeakMap<QueryId, string>();

const SHAPE_NAME = /^[a-z][a-z0-9_]{0,49}$/;

/**
 * A Kysely-built statement whose text varies with the filters present (a staff list), run on
 * PostgreSQL as a named prepared statement per text: `query.withPlugin(preparedByShape('users_list'))`.
 * Each session then parses and plans a text once instead of on every request (decision 0106).
 * The statement must name its columns (no `selectAll`), so a migration adding columns cannot
 * change the result of a cached plan. Behind a transaction pooler it runs unnamed (decision 0102).
 */
export function preparedByShape(name: string): KyselyPlugin {
  if (!SHAPE_NAME.test(name)) throw new Error(`a shape name is lower case, digits and _, at most 50: ${name}`);
  return {
    transformQuery({ node, queryId }) {
      shapeNames.set(queryId, name);
      return node;
    },
    async transformResult({ result }) {
      return result;
    },
  };
}

/**
 * The query with `/* prepared by shape: <name> *\/` opening its text when it was built with
 * `preparedByShape`: the mark the pg client reads (src/lib/pg-client.ts `preparedNameOf`).
 * A comment, so PGlite runs the text as it is.
 */
export function withShapeMark(query: CompiledQuery): CompiledQuery {
  const name = shapeNames.get(query.queryId);
  return name === undefined ? query : { ...query, sql: `/* prepared by shape: ${name} */ ${query.sql}` };
}
