import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@cyclone/client';
import { useTestDatabase } from '@cyclone/test-db';
import { runCyclone, startCyclone } from './support/run-cyclone.js';

const db = useTestDatabase();
let client: Client;
beforeAll(() => {
  client = new Client({ connectionString: db.url });
});
afterAll(() => client.close());

/** Sends a GET with exactly these headers (`Host` included, which fetch sets itself); resolves with the status. */
function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

const json = { 'Content-Type': 'application/json' };
const workflowModule = fileURLToPath(new URL('./fixtures/workflows.js', import.meta.url));

/** The URL of the serving line, once printed. */
const servingUrl = (stdout: string) => /serving .* at (http:\/\/\S+)/.exec(stdout)?.[1];

describe('cyclone serve', () => {
  it('serves the API and the dashboard on 127.0.0.1, then stops cleanly on SIGTERM', async () => {
    const server = startCyclone(['serve', '--port', '0', '--database-url', db.url]);
    try {
      await server.waitForOutput((out) => servingUrl(out) !== undefined);
      const url = servingUrl(server.stdout())!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const { runId } = await client.enqueue('serve.job', {});
      const runs = (await (await fetch(`${url}/api/runs`)).json()) as { runs: { id: string }[] };
      expect(runs.runs.map((r) => r.id)).toEqual([runId]);
      // What a page elsewhere can make a browser send changes nothing.
      const plain = await fetch(`${url}/api/runs/${runId}/cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: '{}',
      });
      expect(plain.status).toBe(403);
      const foreign = await fetch(`${url}/api/runs/${runId}/cancel`, {
        method: 'POST',
        headers: { ...json, Origin: 'http://evil.example' },
      });
      expect(foreign.status).toBe(403);
      expect(await statusOf(`${url}/api/runs`, { Host: 'evil.example' })).toBe(403);
      expect((await client.getRun(runId)).state).toBe('running');
      const cancelled = await fetch(`${url}/api/runs/${runId}/cancel`, {
        method: 'POST',
        headers: json,
      });
      expect(cancelled.status).toBe(200);
      expect((await client.getRun(runId)).state).toBe('cancelled');
      expect(await (await fetch(`${url}/`)).text()).toContain('<title>Cyclone</title>');

      server.child.kill('SIGTERM');
      expect(await server.exited()).toBe(0);
      expect(server.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);

  it('takes its tokens from the environment: 401 without, 403 for the read-only token on POST', async () => {
    const server = startCyclone(['serve', '--port', '0', '--json', '--database-url', db.url], {
      CYCLONE_TOKEN: 'env-secret',
      CYCLONE_READ_ONLY_TOKEN: 'env-viewer',
    });
    try {
      await server.waitForOutput((out) => out.includes('"serving"'));
      const line = JSON.parse(server.stdout().trim().split('\n')[0]!) as {
        url: string;
        auth: string;
      };
      expect(line.auth).toBe('token');
      expect((await fetch(`${line.url}/api/runs`)).status).toBe(401);
      const auth = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
      expect((await fetch(`${line.url}/api/runs`, auth('env-viewer'))).status).toBe(200);
      const { runId } = await client.enqueue('serve.job', {});
      const post = (token: string) => ({
        method: 'POST',
        headers: { ...json, Authorization: `Bearer ${token}` },
      });
      expect((await fetch(`${line.url}/api/runs/${runId}/pause`, post('env-viewer'))).status).toBe(
        403,
      );
      expect((await fetch(`${line.url}/api/runs/${runId}/pause`, post('env-secret'))).status).toBe(
        200,
      );
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);

  it('answers the --allowed-host names and the --cors-origin origins, and takes them from the environment', async () => {
    const server = startCyclone(
      [
        'serve',
        '--port',
        '0',
        '--allowed-host',
        'cyclone.test',
        '--allowed-host',
        '.ops.test,other.test',
        '--database-url',
        db.url,
      ],
      { CYCLONE_CORS_ORIGINS: 'http://ops.test:3000' },
    );
    try {
      await server.waitForOutput((out) => servingUrl(out) !== undefined);
      const url = servingUrl(server.stdout())!;
      for (const host of ['cyclone.test', 'a.ops.test:8080', 'other.test']) {
        expect(await statusOf(`${url}/api/runs`, { Host: host }), host).toBe(200);
      }
      expect(await statusOf(`${url}/api/runs`, { Host: 'evil.test' })).toBe(403);
      const preflight = await fetch(`${url}/api/runs`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://ops.test:3000', 'Access-Control-Request-Method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://ops.test:3000');
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);

  it('refuses to listen on 0.0.0.0 without a token (exit 1), and a bad port (exit 2)', async () => {
    const open = await runCyclone(['serve', '--host', '0.0.0.0', '--database-url', db.url]);
    expect(open.code).toBe(1);
    expect(open.stderr).toContain('without a token');
    const port = await runCyclone(['serve', '--port', 'http', '--database-url', db.url]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port');
    const host = await runCyclone([
      'serve',
      '--allowed-host',
      'https://x',
      '--database-url',
      db.url,
    ]);
    expect(host.code).toBe(2);
    expect(host.stderr).toContain('--allowed-host');
    expect(host.stderr).toContain('"https://x" is not a host');
  }, 90_000);

  it("checks the --workflows module's input schemas on POST /api/runs, and refuses a missing module (exit 2)", async () => {
    const server = startCyclone([
      'serve',
      '--port',
      '0',
      '--workflows',
      workflowModule,
      '--database-url',
      db.url,
    ]);
    try {
      await server.waitForOutput((out) => servingUrl(out) !== undefined);
      const url = servingUrl(server.stdout())!;
      const refused = await fetch(`${url}/api/runs`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ workflow: 'fixture-typed', input: { orderId: 42 } }),
      });
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { error: { code: string; issues: unknown[] } };
      expect(body.error.code).toBe('VALIDATION');
      expect(body.error.issues).toEqual([{ path: ['orderId'], message: expect.any(String) }]);
      const description = (await (await fetch(`${url}/api/openapi.json`)).json()) as {
        components: { schemas: Record<string, unknown> };
      };
      expect(description.components.schemas['WorkflowInput.fixture-typed']).toMatchObject({
        properties: { orderId: { type: 'string' } },
      });
    } finally {
      server.child.kill('SIGKILL');
    }
    const missing = await runCyclone([
      'serve',
      '--workflows',
      './no-such-module.js',
      '--database-url',
      db.url,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--workflows: no module at');
  }, 90_000);
});
