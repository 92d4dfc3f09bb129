/** Choosing ports: a free one, and a stable one for a data folder. */
import { createHash } from 'node:crypto';
import net from 'node:net';

/** A TCP port on 127.0.0.1 nobody listens on now: bind port 0 and let the kernel choose. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** Whether nothing listens on `port` of 127.0.0.1 (so a server started now can bind it). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port }, () => server.close(() => resolve(true)));
  });
}

/** Ports {@link derivedPort} chooses from: below Linux's ephemeral range, away from 5432. */
const derivedRange = { first: 15_433, size: 10_000 };

/**
 * A port derived from the folder's absolute path, so that the same folder gets the same port even
 * after its data was deleted, and two projects rarely collide.
 */
export function derivedPort(folder: string): number {
  const digest = createHash('sha256').update(folder).digest();
  return derivedRange.first + (digest.readUInt32BE(0) % derivedRange.size);
}
