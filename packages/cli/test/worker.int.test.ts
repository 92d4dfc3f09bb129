import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@cyclone/client';
import { useTestDatabase } from '@cyclone/test-db';
import { runCyclone, startCyclone } from './support/run-cyclone.js';

const db = useTestDatabase();
const fixture = fileURLToPath(new URL('./fixtures/handlers.js', import.meta.url));
let client: Client;
beforeAll(() => {
  client = new Client({ connectionString: db.url });
});
afterAll(() => client.close());

const ready = (stdout: string) => stdout.includes('worker ready');

describe('cyclone worker --handlers', () => {
  it('completes an enqueued job, then stops cleanly on SIGTERM', async () => {
    const worker = startCyclone([
      'worker',
      '--handlers',
      fixture,
      '--concurrency',
      '2',
      '--database-url',
      db.url,
    ]);
    try {
      await worker.waitForOutput(ready);
      expect(worker.stdout()).toMatch(
        /worker ready id=\S+ kinds=fixture\.echo,fixture\.block concurrency=2 scheduler=off/,
      );
      const { runId } = await client.enqueue('fixture.echo', { hello: 'world' });
      const run = await client.wait(runId, { timeout: '30s' });
      expect(run.state).toBe('completed');
      expect(await client.output(runId, 'fixture.echo').catch(() => undefined)).toBeDefined();

      worker.child.kill('SIGTERM');
      expect(await worker.exited()).toBe(0);
      expect(worker.stdout()).toContain('worker stopping');
      expect(worker.stdout()).toContain('worker stopped');
      expect(worker.stderr()).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      worker.child.kill('SIGKILL');
    }
  }, 90_000);

  it('stops at once on a second signal while a step is still running, releasing the step', async () => {
    const worker = startCyclone([
      'worker',
      '--handlers',
      fixture,
      '--scheduler',
      '--grace',
      '1m',
      '--json',
      '--database-url',
      db.url,
    ]);
    try {
      await worker.waitForOutput((out) => out.includes('"event":"ready"'));
      const line = JSON.parse(worker.stdout().split('\n')[0]!) as Record<string, unknown>;
      expect(line).toMatchObject({ event: 'ready', scheduler: 'on' });
      const { runId } = await client.enqueue('fixture.block', {});
      const deadline = Date.now() + 30_000;
      while ((await client.listSteps(runId))[0]?.state !== 'running') {
        if (Date.now() > deadline) throw new Error('the blocking step never started');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      worker.child.kill('SIGTERM');
      await worker.waitForOutput((out) => out.includes('"event":"stopping"'));
      worker.child.kill('SIGTERM');
      expect(await worker.exited(10_000)).toBe(143);
      expect(worker.stdout()).toContain('"event":"forced"');
      // The aborted handler settled, so the step was released: available, no attempt charged.
      expect((await client.listSteps(runId))[0]).toMatchObject({ state: 'available', attempts: 0 });
    } finally {
      worker.child.kill('SIGKILL');
    }
  }, 90_000);

  it('with --scheduler --retention, its embedded scheduler deletes finished runs past it', async () => {
    const worker = startCyclone([
      'worker',
      '--handlers',
      fixture,
      '--scheduler',
      '--retention',
      '1s',
      '--database-url',
      db.url,
    ]);
    try {
      await worker.waitForOutput(ready);
      expect(worker.stdout()).toMatch(/scheduler=on retention=1s/);
      const { runId } = await client.enqueue('fixture.echo', { hello: 'retention' });
      expect((await client.wait(runId, { timeout: '30s' })).state).toBe('completed');
      const deadline = Date.now() + 30_000;
      while (
        await client.getRun(runId).then(
          () => true,
          () => false,
        )
      ) {
        if (Date.now() > deadline) throw new Error('the finished run was never deleted');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      worker.child.kill('SIGTERM');
      expect(await worker.exited()).toBe(0);
    } finally {
      worker.child.kill('SIGKILL');
    }
  }, 90_000);

  it('refuses a module without handlers, and a bad --grace, with exit code 2', async () => {
    const noModule = await runCyclone([
      'worker',
      '--handlers',
      './nope.js',
      '--database-url',
      db.url,
    ]);
    expect(noModule.code).toBe(2);
    expect(noModule.stderr).toContain('--handlers: no module at');
    const grace = await runCyclone([
      'worker',
      '--handlers',
      fixture,
      '--grace',
      'soon',
      '--database-url',
      db.url,
    ]);
    expect(grace.code).toBe(2);
    expect(grace.stderr).toContain('--grace expects a duration');
    const alone = await runCyclone([
      'worker',
      '--handlers',
      fixture,
      '--retention',
      '30d',
      '--database-url',
      db.url,
    ]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--retention sets the embedded scheduler: it needs --scheduler');
    const badRetention = await runCyclone([
      'worker',
      '--handlers',
      fixture,
      '--scheduler',
      '--retention',
      'forever',
      '--database-url',
      db.url,
    ]);
    expect(badRetention.code).toBe(2);
    expect(badRetention.stderr).toContain('--retention expects a duration');
  }, 60_000);
});
