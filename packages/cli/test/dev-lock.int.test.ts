import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCyclone, startCyclone } from './support/run-cyclone.js';

describe('cyclone dev on a data folder in use', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cyclone-dev-lock-'));
  chmodSync(dir, 0o755); // as root, Postgres runs as the postgres user, which must reach it
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second cyclone dev in one line, and the first stops cleanly on SIGINT', async () => {
    const dataDir = path.join(dir, 'db');
    const first = startCyclone(['dev', '--keep', '--port', '0', '--data-dir', dataDir]);
    try {
      await first.waitForOutput((out) => out.includes('the engine keeps running'), 90_000);
      const port = /127\.0\.0\.1:(\d+)/.exec(first.stderr())?.[1];
      expect(port).toBeDefined();

      const second = await runCyclone(['dev', '--no-dashboard', '--data-dir', dataDir]);
      expect(second.code).toBe(1);
      expect(second.stderr.trim().split('\n')).toHaveLength(1);
      expect(second.stderr).toContain(`another cyclone dev (pid ${first.child.pid}) is running on`);

      first.child.kill('SIGINT');
      expect(await first.exited(30_000)).toBe(0);
      expect(first.stderr()).toContain('stopping the worker, the scheduler and the database');
      expect(first.stderr()).not.toMatch(/\n\s+at /); // no stack trace

      // The folder is free again, and keeps its port.
      const third = await runCyclone(['dev', '--no-dashboard', '--data-dir', dataDir]);
      expect(third.code).toBe(0);
      expect(third.stderr).toContain(`127.0.0.1:${port}`);
    } finally {
      first.child.kill('SIGKILL');
    }
  }, 180_000);
});
