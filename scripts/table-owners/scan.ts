import ts from 'typescript';

/**
 * Who owns which table, and which statements of a source file touch which table.
 *
 * An owner is a folder under src/modules (`users`, `billing/checkout`, the family `email`) whose
 * tables.ts adds the table to `Tables`, or `kernel` for the tables src/db/tables.ts declares with
 * `/** @owner kernel *\/` (src/db/tables.ts names the owner of each of its tables that way).
 * A view its owner marks `@published` (`/** @owner users @published *\/`) is there for other areas
 * to read: what the owner shows of its tables, which stay its own.
 */

export type Access = 'read' | 'write';

export interface TableUse {
  table: string;
  access: Access;
  line: number;
  /** The statement as written, for the message (`updateTable('users')`, `UPDATE users`). */
  how: string;
}

const WRITE_CALLS = new Set(['insertInto', 'updateTable', 'deleteFrom', 'mergeInto', 'replaceInto']);
const READ_CALLS = new Set([
  'selectFrom',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoin',
  'using',
]);
/** Row locks taken to write the row next: a read under them is part of a write. */
const WRITE_LOCKS = new Set(['forUpdate', 'forNoKeyUpdate']);

function parse(fileName: string, text: string): ts.SourceFile {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

/** `'users as u'` names the table `users`. */
function tableName(literal: string): string {
  return literal.trim().split(/\s+/)[0] ?? '';
}

export interface DeclaredTable {
  table: string;
  /** The `@owner` tag's first word; undefined without one. */
  owner: string | undefined;
  /** Marked `@published`: other areas may read it. */
  published: boolean;
}

/** Table names a tables.ts adds to `Tables` (the members of every `interface Tables` in the file). */
export function declaredTables(fileName: string, text: string): DeclaredTable[] {
  const found: DeclaredTable[] = [];
  walk(parse(fileName, text), (node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== 'Tables') return;
    for (const member of node.members) {
      if (!ts.isPropertySignature(member) || member.name === undefined) continue;
      const name = ts.isIdentifier(member.name) || ts.isStringLiteral(member.name) ? member.name.text : undefined;
      if (name === undefined) continue;
      const tags = ts.getJSDocTags(member);
      const tag = tags.find((t) => t.tagName.text === 'owner');
      // `@owner billing (why)`: the first word names the owner, the rest says why.
      const owner = typeof tag?.comment === 'string' ? tag.comment.trim().split(/\s+/)[0] : undefined;
      found.push({ table: name, owner, published: tags.some((t) => t.tagName.text === 'published') });
    }
  });
  return found;
}

/** The names of the calls chained after `node` (`db.selectFrom('x').select(...).forUpdate()` → select, forUpdate). */
function chainedCalls(node: ts.CallExpression): string[] {
  const names: string[] = [];
  let current: ts.Node = node;
  while (ts.isPropertyAccessExpression(current.parent) && ts.isCallExpression(current.parent.parent)) {
    names.push(current.parent.name.text);
    current = current.parent.parent;
  }
  return names;
}

/** The call a join belongs to: walk down the chain to its selectFrom/updateTable/deleteFrom. */
function chainRoot(node: ts.CallExpression): ts.CallExpression {
  let current = node;
  for (;;) {
    const callee = current.expression;
    if (!ts.isPropertyAccessExpression(callee) || !ts.isCallExpression(callee.expression)) return current;
    current = callee.expression;
  }
}

function calleeName(node: ts.CallExpression): string | undefined {
  const callee = node.expression;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  if (ts.isIdentifier(callee)) return callee.text;
  return undefined;
}

const RAW_WRITE = /\b(?:insert\s+into|update|delete\s+from|merge\s+into)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?/gi;
const RAW_READ = /\b(?:from|join)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?/gi;
const RAW_LOCK = /\bfor\s+(?:no\s+key\s+)?update\b/i;

function rawText(node: ts.TaggedTemplateExpression): string {
  const template = node.template;
  if (ts.isNoSubstitutionTemplateLiteral(template)) return template.text;
  // Substitutions become a placeholder: `FROM ${sql.table(x)}` names no table here.
  return [template.head.text, ...template.templateSpans.map((span) => span.literal.text)].join(' $ ');
}

/** Every statement of the file that names a table: Kysely's builders, `sql` templates and write.editRow. */
export function tableUses(fileName: string, text: string): TableUse[] {
  const source = parse(fileName, text);
  const uses: TableUse[] = [];
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;

  walk(source, (node) => {
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      const first = node.arguments[0];
      if (name === 'editRow') {
        for (const argument of node.arguments) {
          if (!ts.isObjectLiteralExpression(argument)) continue;
          for (const property of argument.properties) {
            if (
              ts.isPropertyAssignment(property) &&
              ts.isIdentifier(property.name) &&
              property.name.text === 'table' &&
              ts.isStringLiteralLike(property.initializer)
            ) {
              const table = property.initializer.text;
              uses.push({ table, access: 'write', line: lineOf(property), how: `editRow({ table: '${table}' })` });
            }
          }
        }
        return;
      }
      if (name === undefined || first === undefined || !ts.isStringLiteralLike(first)) return;
      const table = tableName(first.text);
      if (WRITE_CALLS.has(name)) {
        uses.push({ table, access: 'write', line: lineOf(node), how: `${name}('${first.text}')` });
      } else if (READ_CALLS.has(name)) {
        const root = chainRoot(node);
        // FOR UPDATE without OF locks the rows of every table the select reads: all of them are written next.
        const locked = chainedCalls(root).some((call) => WRITE_LOCKS.has(call));
        const how = `${name}('${first.text}')${locked ? ' … FOR UPDATE' : ''}`;
        uses.push({ table, access: locked ? 'write' : 'read', line: lineOf(node), how });
      }
      return;
    }
    if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && node.tag.text === 'sql') {
      const raw = rawText(node);
      const line = lineOf(node);
      const written = new Set<string>();
      for (const match of raw.matchAll(RAW_WRITE)) {
        const table = (match[1] ?? '').toLowerCase();
        written.add(table);
        uses.push({ table, access: 'write', line, how: `sql\`${match[0].replace(/\s+/g, ' ')}\`` });
      }
      const locked = RAW_LOCK.test(raw);
      for (const match of raw.matchAll(RAW_READ)) {
        const table = (match[1] ?? '').toLowerCase();
        if (written.has(table)) continue;
        const how = `sql\`${match[0].replace(/\s+/g, ' ')}${locked ? ' … FOR UPDATE' : ''}\``;
        uses.push({ table, access: locked ? 'write' : 'read', line, how });
      }
    }
  });
  return uses;
}
