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
      const cancelled = await fetch(`${url}/api/runs/${runId}/cancel`, { method: 'POST' });
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
      const post = { method: 'POST', ...auth('env-viewer') };
      expect((await fetch(`${line.url}/api/runs/${runId}/pause`, post)).status).toBe(403);
      expect(
        (
          await fetch(`${line.url}/api/runs/${runId}/pause`, {
            method: 'POST',
            ...auth('env-secret'),
          })
        ).status,
      ).toBe(200);
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
  }, 90_000);
});
