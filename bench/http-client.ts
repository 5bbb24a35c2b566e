import { request as httpRequest } from 'node:http';

export interface HttpAnswer {
  status: number;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: unknown;
  /** Wall-clock milliseconds from sending the request to the last byte of the answer. */
  ms: number;
}

export interface HttpCall {
  method?: string;
  path: string;
  token?: string;
  body?: unknown;
  /** Milliseconds before giving up (bulk operations may take a while). */
  timeoutMs?: number;
}

/**
 * One request over a fresh connection with node:http (no lazy-loaded client to skew the first
 * timing). Used for setup calls, bulk operations and the startup probe; load goes through autocannon.
 */
export function call(
  baseUrl: string,
  { method = 'GET', path, token, body, timeoutMs = 60_000 }: HttpCall,
): Promise<HttpAnswer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(new URL(path, baseUrl), { method, headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const ms = performance.now() - started;
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text === '' ? null : JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, ms });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Like `call`, but anything other than the expected status is an error naming the request and the answer. */
export async function expectStatus(baseUrl: string, expected: number, request: HttpCall): Promise<HttpAnswer> {
  const answer = await call(baseUrl, request);
  if (answer.status !== expected) {
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    throw new Error(
      `${request.method ?? 'GET'} ${request.path}: expected ${expected}, got ${answer.status} ${body.slice(0, 500)}`,
    );
  }
  return answer;
}
