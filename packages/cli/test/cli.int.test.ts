import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '@cyclone/test-db';
import { runMain } from './support/use-cli.js';

// The commands read CYCLONE_DATABASE_URL; these tests name their database explicitly.
delete process.env.CYCLONE_DATABASE_URL;

const db = useTestDatabase();
const cyclone = (...argv: string[]) => runMain(argv);

describe('cyclone dev', () => {
  it('runs the sample workflow on the given database, retrying the failed charge, and prints the result', async () => {
    const result = await cyclone('dev', '--port', '0', '--database-url', db.url);
    expect(result.out).toMatch(/dashboard and HTTP API at http:\/\/127\.0\.0\.1:\d+\n/);
    expect(result.err).toContain('worker');
    // The run's submission and completion, which its row tells, are in the live view too.
    expect(result.out).toMatch(/\(run\)\s+\(new\) -> running/);
    expect(result.out).toMatch(/\(run\)\s+running -> completed/);
    expect(result.out).toMatch(/charge-card\s+running -> available/);
    expect(result.out).toMatch(/charge-card\s+available -> running\s+\(attempt 2\)/);
    expect(result.out).toContain('run completed');
    expect(result.out).toMatch(/result: \{"ship":\{"trackingNumber":"TRK-\d+-0001"\}\}/);
    expect(result.code).toBe(0);
  }, 60_000);

  it('starts an embedded PostgreSQL when no database is given, and keeps its data between runs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cyclone-dev-'));
    chmodSync(dir, 0o755); // as root, Postgres runs as the postgres user, which must reach it
    const dataDir = path.join(dir, 'db');
    try {
      const first = await cyclone('dev', '--no-dashboard', '--data-dir', dataDir);
      expect(first.err).toContain('creating a development database');
      expect(first.out).toContain('run completed');
      expect(first.code).toBe(0);
      const second = await cyclone('dev', '--no-dashboard', '--data-dir', dataDir);
      expect(second.err).not.toContain('creating a development database');
      expect(second.err).toContain('schema up to date');
      expect(second.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('says what to do when the postgres user cannot reach the data folder', async () => {
    if (process.getuid?.() !== 0) return; // only root hands the server to the postgres user
    const dir = mkdtempSync(path.join(tmpdir(), 'cyclone-dev-'));
    try {
      const result = await cyclone('dev', '--no-dashboard', '--data-dir', path.join(dir, 'db'));
      expect(result.code).toBe(1);
      expect(result.err).toContain(`the postgres user cannot reach ${dir} (mode 700)`);
      expect(result.err).toContain('--data-dir');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('inspecting runs', () => {
  it('lists runs, shows one, and prints its steps and events with database state values', async () => {
    await cyclone('dev', '--no-dashboard', '--database-url', db.url);
    const list = await cyclone('runs', 'list', '--json', '--database-url', db.url);
    expect(list.code).toBe(0);
    const { runs } = JSON.parse(list.out) as {
      runs: { id: string; state: string; workflow: string }[];
    };
    expect(runs[0]).toMatchObject({ state: 'completed', workflow: 'dev.order' });
    const runId = runs[0]!.id;

    const show = await cyclone('runs', 'show', runId, '--database-url', db.url);
    expect(show.out).toMatch(/state\s+completed/);

    const steps = await cyclone('steps', runId, '--database-url', db.url);
    expect(steps.out).toMatch(/charge-card\s+task\s+completed\s+-\s+2\/3/);

    const events = await cyclone('events', runId, '--json', '--database-url', db.url);
    const types = (JSON.parse(events.out) as { type: string }[]).map((e) => e.type);
    expect(types[0]).toBe('run_submitted');
    expect(types).toContain('step_retry_scheduled');
    expect(types[types.length - 1]).toBe('run_completed');
  }, 60_000);

  it('reads through a transaction-mode pooler the same way (--pooler transaction)', async () => {
    const list = await cyclone(
      'runs',
      'list',
      '--json',
      '--pooler',
      'transaction',
      '--database-url',
      db.url,
    );
    expect(list.code).toBe(0);
    expect((JSON.parse(list.out) as { runs: unknown[] }).runs.length).toBeGreaterThan(0);
  });

  it('says which run is unknown, with exit code 3', async () => {
    const result = await cyclone(
      'runs',
      'show',
      '01a229e5-df75-7000-8d9c-0f8cffc21820',
      '--database-url',
      db.url,
    );
    expect(result.code).toBe(3);
    expect(result.err).toContain('run 01a229e5-df75-7000-8d9c-0f8cffc21820 not found [NOT_FOUND]');
  });
});

describe('usage', () => {
  it('rejects an unknown command with the usage and exit code 2', async () => {
    const result = await cyclone('frobnicate');
    expect(result.code).toBe(2);
    expect(result.err).toContain('unknown command "frobnicate"');
    expect(result.err).toContain('usage: cyclone <command>');
  });

  it('explains how to name a database when none is given', async () => {
    const result = await cyclone('migrate');
    expect(result.code).toBe(2);
    expect(result.err).toContain('pass --database-url');
  });

  it('rejects a pooler mode it does not know, naming the flag or the variable', async () => {
    const flag = await cyclone('runs', 'list', '--pooler', 'statement', '--database-url', db.url);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain('--pooler expects none or transaction, got "statement"');
    process.env.CYCLONE_POOLER = 'session';
    try {
      const variable = await cyclone('migrate', '--database-url', db.url);
      expect(variable.code).toBe(2);
      expect(variable.err).toContain('CYCLONE_POOLER expects none or transaction, got "session"');
    } finally {
      delete process.env.CYCLONE_POOLER;
    }
  });

  it('names --listen-database-url when it is not a PostgreSQL URL', async () => {
    const result = await cyclone(
      'runs',
      'list',
      '--listen-database-url',
      'http://db:5432/app',
      '--database-url',
      db.url,
    );
    expect(result.code).not.toBe(0);
    expect(result.err).toContain('client options.listenConnectionString');
  });

  it('rejects an unknown run state', async () => {
    const result = await cyclone('runs', 'list', '--state', 'exhausted', '--database-url', db.url);
    expect(result.code).toBe(2);
    expect(result.err).toContain('unknown run state "exhausted"');
  });
});
