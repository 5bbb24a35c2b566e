import Fastify from 'fastify';

/**
 * The framework's floor: bare Fastify (the service's major, from its own node_modules), no
 * plugins, no hooks, no schema, logger off, answering the baseline's constant JSON body. The
 * scenarios that do no database work are held to a share of it. Run in its own process by
 * `floors.ts`; the port comes as the only argument.
 */
const BODY = { status: 'ok', database: 'ok' };
const port = Number(process.argv[2]);

const app = Fastify({ logger: false });
app.get('/', async () => BODY);
app.listen({ port, host: '127.0.0.1' }).then(
  () => process.stdout.write('ready\n'),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
