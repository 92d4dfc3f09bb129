/**
 * `cyclone dev` serves the dashboard and the HTTP API beside its engine, as `cyclone serve` does,
 * and prints where: with `--keep` they answer there until Ctrl-C.
 */
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '@cyclone/test-db';
import { runCyclone, startCyclone } from './support/run-cyclone.js';

const db = useTestDatabase();

describe('cyclone dev --keep', () => {
  it('answers on the dashboard URL it prints, with the sample run in the API, until Ctrl-C', async () => {
    // Port 0: a free port, so the test does not depend on 7300 being free on this machine.
    const dev = startCyclone(['dev', '--keep', '--port', '0', '--database-url', db.url]);
    try {
      await dev.waitForOutput((out) => out.includes('the engine keeps running'), 90_000);
      const url = /dashboard and HTTP API at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(dev.stdout())?.[1];
      expect(url, dev.stdout()).toBeDefined();
      const runId = /submitted run (\S+)/.exec(dev.stdout())?.[1];
      expect(dev.stdout()).toContain(`open ${url!}/#/runs/${runId!}`);

      const page = await fetch(`${url!}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('<script');
      const run = await fetch(`${url!}/api/runs/${runId!}`);
      expect(run.status).toBe(200);
      expect(((await run.json()) as { run: { state: string } }).run.state).toBe('completed');

      dev.child.kill('SIGINT');
      expect(await dev.exited(30_000)).toBe(0);
      await expect(fetch(`${url!}/healthz`)).rejects.toThrow();
    } finally {
      dev.child.kill('SIGKILL');
    }
  }, 120_000);

  it('serves nothing with --no-dashboard, and refuses a bad --port before starting anything', async () => {
    const bare = await runCyclone(['dev', '--no-dashboard', '--database-url', db.url]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).not.toContain('dashboard and HTTP API at');
    const bad = await runCyclone(['dev', '--port', 'seven', '--database-url', db.url]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port expects a port number from 0 to 65535, got "seven"');
  }, 120_000);
});
