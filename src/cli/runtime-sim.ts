import { parseArgs } from 'node:util';
import { ConfigError } from '../config.js';
import { RuntimeSimulator } from '../runtime-sim/simulator.js';
import type { CommandIo } from './command.js';
import { UsageError } from './errors.js';

export const RUNTIME_SIM_USAGE = `Usage: platform-api runtime-sim [--host 127.0.0.1] [--port 8090] [--pull-delay-ms 1500] [--no-seed]

Serves the Runtime HTTP API (docs/runtime-api.md) from memory, for pointing RUNTIME_URL at
during development. Clients authenticate with RUNTIME_API_KEY, read from the environment
(required; never from argv, where "ps" would show it). Seeded with pool "default" and nodes
node-1 and node-2 unless --no-seed. Image pulls take --pull-delay-ms; an image whose reference
contains "does-not-exist" fails. SIGTERM/SIGINT stop it.`;

export async function runtimeSimulatorCommand(args: string[], io: CommandIo): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8090' },
      'pull-delay-ms': { type: 'string', default: '1500' },
      'no-seed': { type: 'boolean', default: false },
    },
  });
  const port = integerOption(values.port, '--port', 0, 65_535);
  const pullDelayMs = integerOption(values['pull-delay-ms'], '--pull-delay-ms', 0, 3_600_000);
  const apiKey = io.env.RUNTIME_API_KEY;
  if (apiKey === undefined || apiKey === '')
    throw new ConfigError(
      'RUNTIME_API_KEY',
      'must be set to the key clients will present (it is read from the environment only)',
    );

  const simulator = new RuntimeSimulator({ apiKey, pullDelayMs, seed: !values['no-seed'] });
  const url = await simulator.listen(values.host, port);
  io.stdout.write(
    `Runtime simulator listening on ${url} ` +
      `(${values['no-seed'] ? 'empty' : 'seeded: pool default, nodes node-1 and node-2'})\n`,
  );
  const shutdown = () => void simulator.close().finally(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

function integerOption(value: string, name: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max)
    throw new UsageError(`${name} must be an integer from ${min} to ${max}`, RUNTIME_SIM_USAGE);
  return parsed;
}
