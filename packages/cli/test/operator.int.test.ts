import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permanent, workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { useTestDatabase } from '@cyclone/test-db';
import { Worker } from '@cyclone/worker';
import { pino } from 'pino';
import { main, type Output } from '../src/index.js';

delete process.env.CYCLONE_DATABASE_URL;

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  client = new Client({ pool });
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

async function cyclone(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const output: Output = { out: (l) => out.push(l), err: (l) => err.push(l), isTTY: false };
  const code = await main([...argv, '--database-url', db.url], output);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A failed run of one node, discarded permanently by a real worker. */
async function failedRun(): Promise<string> {
  const worker = new Worker({
    connectionString: db.url,
    handlers: {
      'cli.boom': () => {
        throw permanent(new Error('no'));
      },
    },
    logger: pino({ level: 'silent' }),
    pollInterval: '100ms',
  });
  await worker.start();
  try {
    const { runId } = await client.submit(
      workflow('cli-op').task('boom', 'cli.boom').build(),
      null,
    );
    await client.wait(runId, { timeout: '10s' });
    return runId;
  } finally {
    await worker.stop({ timeout: '1s' });
  }
}

describe('operator commands', () => {
  it('pause, resume and cancel a run; a second cancel is refused with its reason (exit 1)', async () => {
    const { runId } = await client.enqueue('cli.nobody', null);
    expect((await cyclone('pause', runId)).out).toContain('now paused');
    const again = await cyclone('pause', runId, '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.err)).toMatchObject({
      error: { code: 'ALREADY_PAUSED', reason: 'same-state' },
    });
    expect((await cyclone('resume', runId)).out).toContain('now running');
    const cancelled = await cyclone('cancel', runId, '--json');
    expect(JSON.parse(cancelled.out)).toEqual({ runId, action: 'cancelled', state: 'cancelled' });
    const refused = await cyclone('cancel', runId);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('reason: terminal');
    expect((await client.getRun(runId)).state).toBe('cancelled');
  });

  it('exit 3 for an unknown run, 2 for bad usage', async () => {
    expect((await cyclone('cancel', '00000000-0000-7000-8000-000000000000')).code).toBe(3);
    expect((await cyclone('retry', '00000000-0000-7000-8000-000000000000')).code).toBe(2);
    expect((await cyclone('dlq', 'list', '--reason', 'exhausted')).code).toBe(2);
  });

  it('lists the DLQ with database values and redrives it; retry retries a node', async () => {
    const one = await failedRun();
    const two = await failedRun();
    const list = await cyclone('dlq', 'list', '--reason', 'permanent', '--workflow', 'cli-op');
    expect(list.code).toBe(0);
    expect(list.out).toContain('discarded');
    expect(list.out).not.toContain('exhausted');
    const json = JSON.parse((await cyclone('dlq', 'list', '--json')).out);
    expect(json.steps.map((s: { runId: string }) => s.runId).sort()).toEqual([one, two].sort());
    const retried = await cyclone('retry', one, 'boom');
    expect(retried.out).toContain('now running');
    expect((await cyclone('retry', one, 'boom')).code).toBe(1);
    const redrive = await cyclone('dlq', 'redrive', '--reason', 'permanent', '--json');
    expect(JSON.parse(redrive.out)).toEqual({ retried: 1, runs: [two] });
    expect((await client.getRun(two)).state).toBe('running');
  });
});
