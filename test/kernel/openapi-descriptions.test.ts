import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
/** Whole document descriptions, the kernel's notes (permission, rate limit, maintenance) included. */
const MAX_DESCRIPTION = 500;
/** One route's `app.<method>(path, options, handler)` call, from its first line to its last. */
const MAX_ROUTE_LINES = 80;
const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'route']);
/** A `register…Routes` function, from its first line to its last, is shorter than this: a table of routes. */
const MAX_REGISTRATION_LINES = 80;
const REGISTRATION_NAME = /^register\w*Routes$/;
/** Registrations still longer, by file and function name; an entry leaves the list when its area is split. */
/** Registrations still longer, each with its reason (none today). */
const LONG_REGISTRATIONS_LEFT = new Set<string>([]);

type Operation = { operationId?: string; description?: string };
const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
);

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const isApp = (node: ts.Expression) => ts.isIdentifier(node) && node.text === 'app';

/** Every route registration in a file: a call `<x>.get|post|…('/path', …)`, with its length in lines. */
function routeRegistrations(file: string): Array<{ where: string; lines: number }> {
  const text = readFileSync(file, 'utf8');
  if (!/\.(get|post|put|patch|delete|route)\(/.test(text)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ where: string; lines: number }> = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ROUTE_METHODS.has(node.expression.name.text) &&
      node.arguments.length >= 2 &&
      // A literal path, or a path constant of the file (`app.get(BASE, listThings, …)`).
      ((ts.isStringLiteralLike(node.arguments[0]!) && node.arguments[0].text.startsWith('/')) ||
        (ts.isIdentifier(node.arguments[0]!) && node.arguments.length === 3 && isApp(node.expression.expression)))
    ) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({
        where: `${relative(ROOT, file)}:${first + 1} ${node.arguments[0]!.getText()}`,
        lines: last - first + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every function named `register…Routes` in a file (declared, or a const holding one), with its length in lines. */
function registrationFunctions(file: string): Array<{ where: string; lines: number }> {
  const text = readFileSync(file, 'utf8');
  if (!/register\w*Routes/.test(text)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ where: string; lines: number }> = [];
  const visit = (node: ts.Node) => {
    let name: string | undefined;
    if (ts.isFunctionDeclaration(node)) name = node.name?.text;
    else if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer !== undefined &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    )
      name = node.name.text;
    if (name !== undefined && REGISTRATION_NAME.test(name)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ where: `${relative(ROOT, file)} ${name}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('route files a reader takes in at a glance', () => {
  it(`every operation's description is at most ${MAX_DESCRIPTION} characters (more goes to the fields or docs/api/)`, () => {
    expect(operations.length).toBeGreaterThan(200);
    const long = operations
      .filter(({ op }) => (op.description ?? '').length > MAX_DESCRIPTION)
      .map(({ where, op }) => `${where}: ${op.description!.length}`);
    expect(long).toEqual([]);
  });

  it('every docs/api/ page a description links exists and has the linked section', () => {
    let links = 0;
    for (const { where, op } of operations)
      for (const [, page, anchor] of (op.description ?? '').matchAll(/\]\((docs\/api\/[\w-]+\.md)#([\w-]+)\)/g)) {
        links += 1;
        const file = join(ROOT, page!);
        expect(existsSync(file), `${where} links ${page}`).toBe(true);
        const anchors = [...readFileSync(file, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) =>
          anchorOf(heading!),
        );
        expect(anchors, `${where} links ${page}#${anchor}`).toContain(anchor);
      }
    expect(links).toBeGreaterThan(40);
  });

  it(`every route registration is at most ${MAX_ROUTE_LINES} lines`, () => {
    const routes = sourceFiles(join(ROOT, 'src')).flatMap(routeRegistrations);
    expect(routes.length).toBeGreaterThan(200);
    const long = routes.filter((route) => route.lines > MAX_ROUTE_LINES).map((r) => `${r.where}: ${r.lines} lines`);
    expect(long).toEqual([]);
  });

  it(`every register…Routes function is shorter than ${MAX_REGISTRATION_LINES} lines (one per resource)`, () => {
    const registrations = sourceFiles(join(ROOT, 'src')).flatMap(registrationFunctions);
    expect(registrations.length).toBeGreaterThan(40);
    const long = registrations.filter((registration) => registration.lines >= MAX_REGISTRATION_LINES);
    expect(
      long.filter(({ where }) => !LONG_REGISTRATIONS_LEFT.has(where)).map((r) => `${r.where}: ${r.lines} lines`),
    ).toEqual([]);
    // An exception whose registration is split (or gone) leaves the list.
    expect([...LONG_REGISTRATIONS_LEFT].filter((where) => !long.some((r) => r.where === where))).toEqual([]);
  });
});
