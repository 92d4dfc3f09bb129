import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { useTestDatabase } from '@cyclone/test-db';
import { main, type Output } from '../src/index.js';

delete process.env.CYCLONE_DATABASE_URL;

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined); // the database's drop ends idle connections
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

describe('child runs in the CLI', () => {
  it('shows the child run of a child node in runs show and steps, and lists runs by parent', async () => {
    const invoice = workflow('cli-invoice').waitSignal('go', { signal: 'go' }).build();
    // Submitting a definition once stores it by name, so a child node can start it.
    await client.submit(invoice, null);
    const parent = workflow('cli-order').child('invoice', { workflow: 'cli-invoice' }).build();
    const { runId } = await client.submit(parent, null);
    const [node] = await client.listSteps(runId);
    const childRunId = node!.childRunId!;
    expect(childRunId).toMatch(/^[0-9a-f-]{36}$/);

    const show = await cyclone('runs', 'show', runId);
    expect(show.code).toBe(0);
    expect(show.out).toContain(`invoice: ${childRunId} (running)`);
    expect(show.out).toContain(`invoice: child run ${childRunId}`);
    const child = await cyclone('runs', 'show', childRunId);
    expect(child.out).toContain(`parent run   ${runId}`);

    const steps = await cyclone('steps', runId);
    expect(steps.code).toBe(0);
    expect(steps.out).toContain('waiting_child');
    expect(steps.out).toContain(childRunId);

    const listed = await cyclone('runs', 'list', '--parent', runId, '--json');
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.out) as { runs: { id: string }[] }).runs.map((r) => r.id)).toEqual([
      childRunId,
    ]);
    await client.cancel(runId);
  });
});
