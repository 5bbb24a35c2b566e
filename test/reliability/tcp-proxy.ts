import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback that a test puts between the service and one dependency (PostgreSQL,
 * Redis, SMTP, an HTTP peer) and then breaks on purpose:
 *
 * - `pass()`: bytes flow both ways (the start state);
 * - `cut()`: every open connection is reset at once; new ones are still accepted;
 * - `refuse()`: every open connection is reset and new ones are reset on arrival (the peer is
 *   down; the port still answers, as a load balancer in front of a dead server does);
 * - `blackhole()`: bytes on open connections are dropped, new connections are accepted and
 *   never forwarded; nothing is answered and nothing is closed (a firewall dropping packets,
 *   a peer hung);
 * - `latency(ms)`: each chunk, each way, is held for `ms` before it is passed on.
 *
 * `connections` counts the connections accepted so far, `open` those alive now.
 */
export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  /** `url` with its host and port swapped for the proxy's. */
  via(url: string): string;
  readonly connections: number;
  readonly open: number;
  pass(): void;
  cut(): void;
  refuse(): void;
  blackhole(): void;
  latency(ms: number): void;
  close(): Promise<void>;
}

type Mode = 'pass' | 'refuse' | 'blackhole';

export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const host = target.host ?? '127.0.0.1';
  const pairs = new Set<{ client: Socket; upstream: Socket | undefined }>();
  let mode: Mode = 'pass';
  let delayMs = 0;
  let accepted = 0;

  const destroyAll = () => {
    for (const pair of pairs) {
      pair.client.resetAndDestroy();
      pair.upstream?.resetAndDestroy();
    }
    pairs.clear();
  };

  /** Forwards `from` to `to`, holding each chunk for the current latency, keeping the order. */
  const pipe = (from: Socket, to: Socket) => {
    let queue = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      if (mode === 'blackhole') return;
      const wait = delayMs;
      if (wait === 0) {
        queue = queue.then(() => void (to.destroyed || to.write(chunk)));
        return;
      }
      queue = queue.then(
        () =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              if (!to.destroyed) to.write(chunk);
              resolve();
            }, wait),
          ),
      );
    });
    from.on('end', () => void queue.then(() => to.end()));
  };

  const server: Server = createServer((client) => {
    accepted += 1;
    client.on('error', () => {});
    if (mode === 'refuse') return void client.resetAndDestroy();
    const pair: { client: Socket; upstream: Socket | undefined } = { client, upstream: undefined };
    pairs.add(pair);
    const forget = () => {
      pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('close', forget);
    if (mode === 'blackhole') return;
    const upstream = connect({ host, port: target.port });
    pair.upstream = upstream;
    upstream.on('error', () => client.resetAndDestroy());
    upstream.on('close', forget);
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    port,
    via(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    get connections() {
      return accepted;
    },
    get open() {
      return pairs.size;
    },
    pass() {
      mode = 'pass';
      delayMs = 0;
    },
    cut: destroyAll,
    refuse() {
      mode = 'refuse';
      destroyAll();
    },
    blackhole() {
      mode = 'blackhole';
    },
    latency(ms) {
      delayMs = ms;
    },
    close() {
      destroyAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
