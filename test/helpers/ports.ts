import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback port nothing listens on: connections to it are refused at once. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A free loopback port below the ephemeral range (Linux hands out 32768 and up for port 0): one a
 * file may keep coming back to, since `closedPort()` in another fork, or an outgoing connection,
 * never picks it; a listen there can still find it taken by another program.
 */
export async function freePortBelowEphemeral(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }
}
