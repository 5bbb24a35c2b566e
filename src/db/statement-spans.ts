import type { CompiledQuery, OperationNode } from 'kysely';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
} from '@opentelemetry/semantic-conventions';
import { edgesTraced, inClientSpan } from '../lib/spans.js';

/** A table as Kysely's nodes hold it: `users`, or `users as u`. */
function tableName(node: OperationNode | undefined): string | undefined {
  if (node === undefined) return undefined;
  const { kind } = node;
  if (kind === 'AliasNode') return tableName((node as unknown as { node: OperationNode }).node);
  if (kind !== 'TableNode') return undefined;
  return (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
}

/** The table a query built with Kysely reads or writes first; undefined for raw SQL. */
function tableOf(query: OperationNode): string | undefined {
  const node = query as unknown as {
    from?: { froms: OperationNode[] };
    into?: OperationNode;
    table?: OperationNode;
  };
  return tableName(node.into ?? node.table ?? node.from?.froms[0]);
}

/**
 * Runs one statement inside its span, when a traced request or operation runs it: named by its
 * operation and table (`SELECT users`), with the statement as compiled, whose values are
 * parameters ($1, $2), never the values themselves. The embedded database is PostgreSQL too.
 */
export function inStatementSpan<T>(statement: CompiledQuery | string, run: () => Promise<T>): Promise<T> {
  if (!edgesTraced()) return run();
  const sql = typeof statement === 'string' ? statement : statement.sql;
  const operation = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const table = typeof statement === 'string' ? undefined : tableOf(statement.query);
  return inClientSpan(
    table === undefined ? operation : `${operation} ${table}`,
    {
      [ATTR_DB_SYSTEM_NAME]: 'postgresql',
      [ATTR_DB_OPERATION_NAME]: operation,
      [ATTR_DB_QUERY_TEXT]: sql,
      ...(table === undefined ? {} : { [ATTR_DB_COLLECTION_NAME]: table }),
    },
    run,
    { withinTrace: true },
  );
}
