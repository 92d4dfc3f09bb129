import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Client } from '@cyclone/client';
import { useTestDatabase } from '@cyclone/test-db';
import { cycloneCommand, runCyclone } from './support/run-cyclone.js';

const db = useTestDatabase();

/** A URL nobody answers on: port 1 refuses connections. */
const unreachable = 'postgres://postgres:secret@127.0.0.1:1/app';

describe('cyclone from a shell', () => {
  it('prints its version and per-command help with examples', async () => {
    const version = await runCyclone(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe('0.1.0');

    const help = await runCyclone(['runs', 'list', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--state <states>');
    expect(help.stdout).toContain('--database-url <url>');
    expect(help.stdout).toContain('$ cyclone runs list --state failed');
  });

  it('suggests the command meant by a typo, with exit code 2', async () => {
    const result = await runCyclone(['rusn', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "rusn"');
    expect(result.stderr).toContain('Did you mean runs?');
  });

  it('refuses an unknown flag and an extra argument with exit code 2', async () => {
    const flag = await runCyclone(['runs', 'list', '--stat', 'failed']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown option "--stat"');
    expect(flag.stderr).toContain('Did you mean --state?');
    const extra = await runCyclone(['steps', 'run-a', 'run-b', '--database-url', db.url]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('too many arguments');
  });

  it('prints errors as { error: { code, message } } under --json', async () => {
    const usage = await runCyclone(['runs', 'list', '--bogus', '--json']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr)).toEqual({
      error: { code: 'USAGE', message: expect.stringContaining('--bogus') as string },
    });
    const missing = await runCyclone([
      'runs',
      'show',
      '01a229e5-df75-7000-8d9c-0f8cffc21820',
      '--json',
      '--database-url',
      db.url,
    ]);
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stderr)).toEqual({
      error: { code: 'NOT_FOUND', message: 'run 01a229e5-df75-7000-8d9c-0f8cffc21820 not found' },
    });
  });

  // Three CLI processes start from source: on a loaded machine each start takes seconds, so the
  // test has a deadline sized for three starts, and the two URL cases run side by side.
  it(
    'exits 4 with one line when the database cannot be reached, the password hidden',
    { timeout: 120_000 },
    async () => {
      const results = await Promise.all(
        [
          ['runs', 'list', '--database-url', unreachable],
          ['migrate', '--status', '--database-url', unreachable],
        ].map((args) => runCyclone(args)),
      );
      for (const result of results) {
        expect(result.code).toBe(4);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toContain(
          'cannot reach the database at postgres://postgres:***@127.0.0.1:1/app',
        );
        expect(result.stderr).not.toContain('secret');
      }
      const json = await runCyclone(['runs', 'list', '--json'], { DATABASE_URL: unreachable });
      expect(json.code).toBe(4);
      expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'DATABASE_UNREACHABLE' } });
    },
  );

  it('stops quietly when the reader of its output goes away (| head)', async () => {
    const client = new Client({ connectionString: db.url });
    try {
      // Enough output (about half a megabyte) that the pipe is closed while the CLI still writes.
      await client.enqueueMany(
        'fixture.echo',
        Array.from({ length: 1000 }, (_, i) => ({ i })),
      );
    } finally {
      await client.close();
    }
    const command = cycloneCommand(['runs', 'list', '--json', '--limit', '1000'])
      .map((word) => `'${word}'`)
      .join(' ');
    const result = spawnSync('bash', ['-c', `set -o pipefail; ${command} | head -1 >/dev/null`], {
      encoding: 'utf8',
      env: { ...process.env, CYCLONE_DATABASE_URL: db.url },
    });
    expect(result.stderr).not.toContain('EPIPE');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('lists migrations as pending, then as applied after cyclone migrate', async () => {
    const schema = ['--schema', 'status_check', '--database-url', db.url];
    const before = await runCyclone(['migrate', '--status', '--json', ...schema]);
    expect(before.code).toBe(0);
    const pending = JSON.parse(before.stdout) as { tag: string; applied: boolean }[];
    expect(pending.length).toBeGreaterThan(0);
    expect(pending[0]).toMatchObject({ tag: '0000_init', applied: false });
    expect(pending.every((m) => !m.applied)).toBe(true);

    const text = await runCyclone(['migrate', '--status', ...schema]);
    expect(text.stdout).toMatch(/0000_init\s+pending/);
    expect(text.stdout).toContain(`${pending.length} pending`);

    expect((await runCyclone(['migrate', ...schema])).stdout).toContain(
      `applied ${pending.length} migration(s)`,
    );
    const after = await runCyclone(['migrate', '--status', ...schema]);
    expect(after.stdout).toMatch(/0000_init\s+applied/);
    expect(after.stdout).toContain(`all ${pending.length} migration(s) applied`);
    // Four processes, each starting Node and connecting: on a loaded machine that passes 30 s.
  }, 90_000);
});
