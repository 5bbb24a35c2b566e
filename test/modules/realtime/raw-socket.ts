import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/**
 * A WebSocket client with no library, as an attacker writes one: it upgrades, then writes
 * whatever bytes it likes and reads nothing unless it chooses to (the socket is left paused).
 */
export async function rawUpgrade(port: number, ticket: string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {}); // a cut connection is what these tests expect; `close` says so
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('close', () => reject(new Error('closed before connecting')));
  });
  socket.write(
    [
      `GET /v1/realtime?ticket=${ticket} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      '',
      '',
    ].join('\r\n'),
  );
  const head = await new Promise<string>((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.pause();
      if (end + 4 < received.length) socket.unshift(received.subarray(end + 4));
      resolve(received.subarray(0, end).toString());
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error('closed during the upgrade')));
  });
  if (!head.startsWith('HTTP/1.1 101')) throw new Error(`not upgraded: ${head.split('\r\n')[0]}`);
  return socket;
}

/** One masked client frame with a payload under 126 bytes; opcode 1 is text, 9 a ping. */
export function clientFrame(payload: string, opcode = 1): Buffer {
  const data = Buffer.from(payload);
  const mask = randomBytes(4);
  const frame = Buffer.alloc(6 + data.length);
  frame[0] = 0x80 | opcode;
  frame[1] = 0x80 | data.length;
  mask.copy(frame, 2);
  for (let i = 0; i < data.length; i += 1) frame[6 + i] = data[i]! ^ mask[i % 4]!;
  return frame;
}

/** `frame` repeated to about `bytes`. */
export function frames(frame: Buffer, bytes: number): Buffer {
  return Buffer.concat(Array.from({ length: Math.ceil(bytes / frame.length) }, () => frame));
}

/**
 * Writes `chunk` again and again until `totalBytes` are written, the server cuts the connection,
 * or `timeoutMs` passes; it waits for the socket to drain, so the flood costs the client nothing.
 */
export async function flood(
  socket: Socket,
  chunk: Buffer,
  totalBytes: number,
  timeoutMs: number,
): Promise<{ written: number; cut: boolean }> {
  const deadline = Date.now() + timeoutMs;
  let written = 0;
  const cut = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let isCut = false;
  void cut.then(() => {
    isCut = true;
  });
  while (written < totalBytes && !isCut && Date.now() < deadline) {
    written += chunk.length;
    if (socket.write(chunk)) continue;
    const left = deadline - Date.now();
    await Promise.race([
      new Promise((resolve) => socket.once('drain', resolve)),
      cut,
      new Promise((resolve) => setTimeout(resolve, Math.max(left, 0))),
    ]);
  }
  if (!isCut)
    await Promise.race([cut, new Promise((resolve) => setTimeout(resolve, Math.max(deadline - Date.now(), 0)))]);
  return { written, cut: isCut };
}
