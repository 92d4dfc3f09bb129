/**
 * The `Host` check against real servers listening on ephemeral ports (port 0): loopback, IPv6
 * loopback and a wildcard bind with a token, each with the Host headers a browser, a proxy and a
 * rebinding page send.
 */
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createServer, ServerOptionsError } from '../src/index.js';
import { send, testLogger, useServer } from './support.js';

const env = useServer();

/** Whether this machine has IPv6 loopback (some containers do not). */
const hasIpv6Loopback = Object.values(networkInterfaces())
  .flat()
  .some((address) => address?.family === 'IPv6' && address.internal);

describe('the Host check', () => {
  it('on loopback, answers its address and localhost with its port, and 403 to any other Host', async () => {
    const server = createServer({ client: env.client, logger: testLogger });
    const { port } = await server.listen(0);
    const url = (path: string) => `http://127.0.0.1:${port}${path}`;
    try {
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
        expect((await send(url('/api/runs'), 'GET', { Host: host })).status, host).toBe(200);
      }
      for (const host of [`evil.example:${port}`, 'evil.example', `localhost:${port + 1}`]) {
        const refused = await send(url('/api/runs'), 'GET', { Host: host });
        expect(refused.status, host).toBe(403);
        expect(refused.body.error.code).toBe('HOST_NOT_ALLOWED');
        expect(refused.body.error.message).toContain(JSON.stringify(host));
        expect(refused.body.error.message).toContain('--allowed-host');
      }
      const evil = { Host: `evil.example:${port}` };
      // Before any route: the dashboard, the event stream and unknown paths alike.
      expect((await send(url('/'), 'GET', evil)).status).toBe(403);
      expect((await send(url('/api/events/stream'), 'GET', evil)).status).toBe(403);
      expect((await send(url('/api/nothing-here'), 'GET', evil)).status).toBe(403);
      // Probes send the Host they like: /healthz answers it.
      const health = await send(url('/healthz'), 'GET', evil);
      expect(health.status).toBe(200);
      expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    } finally {
      await server.close();
    }
  });

  it('answers the names given in allowedHosts', async () => {
    const server = createServer({
      client: env.client,
      allowedHosts: ['cyclone.test', '.ops.test'],
      logger: testLogger,
    });
    const { port } = await server.listen(0);
    try {
      for (const host of ['cyclone.test', `cyclone.test:${port}`, 'a.ops.test:443']) {
        const answer = await send(`http://127.0.0.1:${port}/api/runs`, 'GET', { Host: host });
        expect(answer.status, host).toBe(200);
      }
      const other = await send(`http://127.0.0.1:${port}/api/runs`, 'GET', {
        Host: 'ops.test.evil',
      });
      expect(other.status).toBe(403);
    } finally {
      await server.close();
    }
  });

  it.runIf(hasIpv6Loopback)('on [::1], answers its bracketed address', async () => {
    const server = createServer({ client: env.client, host: '::1', logger: testLogger });
    const address = await server.listen(0);
    try {
      expect(address.url).toBe(`http://[::1]:${address.port}`);
      // fetch sends `Host: [::1]:port`, as a browser does.
      expect((await fetch(`${address.url}/api/runs`)).status).toBe(200);
      const evil = await send(`${address.url}/api/runs`, 'GET', {
        Host: `evil.example:${address.port}`,
      });
      expect(evil.status).toBe(403);
    } finally {
      await server.close();
    }
  });

  it('on 0.0.0.0 with a token, answers any IP address with its port, and names only when allowed', async () => {
    const server = createServer({
      client: env.client,
      token: 'wide-secret',
      allowedHosts: ['cyclone.example.com'],
      logger: testLogger,
    });
    const { port } = await server.listen(0, '0.0.0.0');
    const bearer = { Authorization: 'Bearer wide-secret' };
    const get = (host: string, headers: Record<string, string> = bearer) =>
      send(`http://127.0.0.1:${port}/api/runs`, 'GET', { ...headers, Host: host });
    try {
      expect((await get(`192.0.2.10:${port}`)).status).toBe(200);
      expect((await get(`[2001:db8::1]:${port}`)).status).toBe(200);
      expect((await get(`localhost:${port}`)).status).toBe(200);
      // Behind a proxy, on its port: the name was allowed without one.
      expect((await get('cyclone.example.com')).status).toBe(200);
      expect((await get(`192.0.2.10:${port + 1}`)).status).toBe(403);
      expect((await get(`www.cyclone.example.com:${port}`)).status).toBe(403);
      // Refused before the token is looked at.
      const stranger = await get(`evil.example:${port}`, {});
      expect(stranger.status).toBe(403);
      expect(stranger.body.error.code).toBe('HOST_NOT_ALLOWED');
      expect((await get(`192.0.2.10:${port}`, {})).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('embedded in another server, answers loopback names on any port', async () => {
    const server = createServer({ client: env.client, logger: testLogger });
    const local = await server.fetch(new Request('http://localhost:4000/api/runs'));
    expect(local.status).toBe(200);
    const foreign = await server.fetch(new Request('http://evil.example:4000/api/runs'));
    expect(foreign.status).toBe(403);
    await server.close();
  });

  it('refuses allowedHosts and corsOrigins entries of no known form at createServer', () => {
    expect(() =>
      createServer({ client: env.client, allowedHosts: ['https://x.example'], logger: testLogger }),
    ).toThrow(ServerOptionsError);
    expect(() =>
      createServer({ client: env.client, corsOrigins: ['ops.example.com'], logger: testLogger }),
    ).toThrow(/corsOrigins \(--cors-origin\): "ops\.example\.com" is not an origin/);
  });
});
