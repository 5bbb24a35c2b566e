import { createServer } from 'node:http';

/**
 * The baseline: the most this Node.js runtime can answer on this machine, with nothing but
 * node:http and a constant body about the size of the service's /health answer. Run in its own
 * process (as the service is) by bench/floors.ts; the port comes as the only argument.
 */
const BODY = Buffer.from(JSON.stringify({ status: 'ok', database: 'ok' }));
const port = Number(process.argv[2]);

createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': BODY.length });
  response.end(BODY);
}).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
