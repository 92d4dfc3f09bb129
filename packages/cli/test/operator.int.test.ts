import { describe, expect, it } from 'vitest';
import { permanent, workflow } from '@cyclone/core';
import { Worker } from '@cyclone/worker';
import { pino } from 'pino';
import { useCli } from './support/use-cli.js';

const cli = useCli();
const { cyclone } = cli;

/** A failed run of one node, discarded permanently by a real worker. */
async function failedRun(): Promise<string> {
  const worker = new Worker({
    connectionString: cli.db.url,
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
    const { runId } = await cli.client.submit(
      workflow('cli-op').task('boom', 'cli.boom').build(),
      null,
    );
    await cli.client.wait(runId, { timeout: '10s' });
    return runId;
  } finally {
    await worker.stop({ timeout: '1s' });
  }
}

describe('operator commands', () => {
  it('pause, resume and cancel a run; a second cancel is refused with its reason (exit 1)', async () => {
    const { runId } = await cli.client.enqueue('cli.nobody', null);
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
    expect((await cli.client.getRun(runId)).state).toBe('cancelled');
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
    expect((await cli.client.getRun(two)).state).toBe('running');
  });
});
