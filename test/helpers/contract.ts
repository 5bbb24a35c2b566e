import { createHash } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Checks every answer a test app gives against the OpenAPI document the same app serves: its
 * status is declared for the operation, and a JSON body matches the declared schema. The
 * document, not zod, is what clients generate code from, so this is where a drift between what
 * the code answers and what the contract says shows.
 */
type Document = {
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, ResponseObject> }>>;
};
type ResponseObject = { content?: Record<string, { schema?: unknown }> };

/** Compiled validators per document (every app of a run serves the same one, or one of a few). */
const checkers = new Map<string, ContractChecker>();

export class ContractChecker {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction | null>();

  constructor(private readonly document: Document) {
    // strict off: OpenAPI adds keywords JSON Schema does not know (`example`, `discriminator`).
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema(document as object, 'openapi.json');
  }

  static for(document: unknown): ContractChecker {
    const key = createHash('sha256').update(JSON.stringify(document)).digest('hex');
    let checker = checkers.get(key);
    if (checker === undefined) {
      checker = new ContractChecker(document as Document);
      checkers.set(key, checker);
    }
    return checker;
  }

  /** What is wrong with an answer, or undefined. `route` is Fastify's pattern (`/v1/x/:id`). */
  check(method: string, route: string, status: number, contentType: string, body: string): string | undefined {
    const path = route.replace(/:(\w+)/g, '{$1}');
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    // Not in the document (hidden), or a probe route a test added (the service's all have an id).
    if (operation?.operationId === undefined) return undefined;
    const responses = operation.responses ?? {};
    const declared = String(status) in responses ? String(status) : `${String(status)[0]}XX`;
    const response = responses[declared];
    const where = `${method} ${path} answered ${status}`;
    if (response === undefined) return `${where}, which its operation does not declare (${body.slice(0, 200)})`;
    // 204 and 304 carry no body on the wire, whatever the handler sent.
    if (status === 204 || status === 304) return undefined;
    if (!/^application\/json/.test(contentType) || response.content?.['application/json'] === undefined) return;
    const validate = this.validator(path, method.toLowerCase(), declared);
    if (validate === null) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `${where} with a body that is not JSON`;
    }
    if (validate(parsed)) return undefined;
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    return `${where} with a body its declared schema refuses: ${problems} (${body.slice(0, 300)})`;
  }

  private validator(path: string, method: string, status: string): ValidateFunction | null {
    const key = `${method} ${path} ${status}`;
    if (!this.validators.has(key)) {
      const pointer = ['paths', path, method, 'responses', status, 'content', 'application/json', 'schema']
        .map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1'))
        .join('/');
      this.validators.set(key, this.ajv.getSchema(`openapi.json#/${pointer}`) ?? null);
    }
    return this.validators.get(key)!;
  }
}

/** Violations by the answer's x-request-id, until the test's call collects them (test/helpers/app.ts). */
export type ContractViolations = Map<string, string>;

/** Checkers by what the app was built from (see `documentKey`), so a key's document is made once. */
const checkersByApp = new Map<string, ContractChecker>();

/**
 * Installs the check on an app (before it is ready); violations go into the map returned.
 * `documentKey`: what the app's document is a function of within this process (its settings and
 * build options; the code is the same for every app of a run). Apps built from the same key share
 * the checker without generating the document again: `app.swagger()` over every route took about
 * 0.23 s of CPU per test app, a tenth of a test file's own start.
 */
export function checkAnswersAgainstContract(app: FastifyInstance, documentKey?: string): ContractViolations {
  const violations: ContractViolations = new Map();
  let checker: ContractChecker | undefined = documentKey === undefined ? undefined : checkersByApp.get(documentKey);
  const checkerOf = () => {
    const made = ContractChecker.for(app.swagger());
    if (documentKey !== undefined) checkersByApp.set(documentKey, made);
    return made;
  };
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined && (typeof payload === 'string' || Buffer.isBuffer(payload) || payload === null)) {
      checker ??= checkerOf();
      const contentType = String(reply.getHeader('content-type') ?? '');
      const body = payload === null ? '' : payload.toString();
      const problem = checker.check(request.method, route, reply.statusCode, contentType, body);
      if (problem !== undefined) violations.set(String(reply.getHeader('x-request-id') ?? request.id), problem);
    }
    done(null, payload);
  });
  return violations;
}
