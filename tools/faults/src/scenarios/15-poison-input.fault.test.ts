/**
 * Scenario 15: poison values (`\u0000`, a lone surrogate, 10 MB, JSON nested 10,000 deep, BigInt,
 * a cycle) as run inputs, job arguments, step outputs, signal payloads and thrown error messages.
 * Each is refused at the boundary with a `ValidationError` naming the path, or the step is
 * discarded cleanly with a readable error; the worker never wedges: a normal job completes after.
 */
import { beforeAll, expect, it } from 'vitest';
import { ValidationError, workflow } from '@cyclone/core';
import type { Worker } from '@cyclone/worker';
import { useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { useInProcessWorkers } from '../support/in-process-worker.js';
import { poisonPayloads } from '../support/poison.js';
import { eventually } from '../support/poll.js';

const db = useFaultDatabase();
const workers = useInProcessWorkers(() => db.url);

const waiting = workflow('fault-poison-wait')
  .waitSignal('gate', { signal: 'go' })
  .task('after', 'poison.echo', { dependsOn: ['gate'] })
  .build();
const chain = workflow('fault-poison-input').task('first', 'poison.echo').build();

const handlers = {
  'poison.echo': () => ({ ok: true }),
  'poison.output': (ctx: { input: unknown }) =>
    poisonPayloads[(ctx.input as { poison: string }).poison]!(),
  'poison.throw': (ctx: { input: unknown }) => {
    const { poison } = ctx.input as { poison: string };
    const messages: Record<string, () => string> = {
      nul: () => 'password\u0000 in a message',
      'lone-surrogate': () => 'broken \uD800 text',
      'ten-megabytes': () => 'y'.repeat(10 * 1024 * 1024),
    };
    if (poison === 'bigint') throw 10n;
    if (poison === 'cycle') throw poisonPayloads.cycle!();
    if (poison === 'nested-10000') throw poisonPayloads['nested-10000']!();
    throw new Error(messages[poison]!());
  },
};

let worker: Worker;
beforeAll(async () => {
  worker = await workers.start({ handlers, workflows: [waiting, chain] });
});

async function stepOf(
  runId: string,
): Promise<{ state: string; error_kind: string | null; error: string | null }> {
  return eventually(async () => {
    const [row] = await db.query<{
      state: string;
      error_kind: string | null;
      error: string | null;
    }>(
      `SELECT state, error_kind, error FROM cyclone_steps WHERE run_id = $1
       AND state IN ('completed', 'discarded')`,
      [runId],
    );
    return row;
  }, `run ${runId}'s step to end`);
}

async function refusal(action: () => Promise<unknown>): Promise<ValidationError> {
  const error = await action().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

it('refuses poison at every boundary or discards the step cleanly, and keeps working', async () => {
  const tally: Record<string, number> = {};
  const count = (outcome: string): void => void (tally[outcome] = (tally[outcome] ?? 0) + 1);
  for (const [name, build] of Object.entries(poisonPayloads)) {
    // A run input and a job's arguments: refused at submit, naming where.
    const submitError = await refusal(() => db.client.submit(chain, build()));
    expect(submitError.issues.length).toBeGreaterThan(0);
    expect(submitError.message).toMatch(/input/);
    const enqueueError = await refusal(() => db.client.enqueue('poison.echo', build()));
    expect(enqueueError.message.length).toBeGreaterThan(0);
    count('inputs_refused');

    // A signal payload: refused, and the waiting run still takes a good signal.
    const { runId: waitRun } = await db.client.submit(waiting, {});
    const signalError = await refusal(() => db.client.signal(waitRun, 'go', build()));
    expect(signalError.message).toMatch(/payload/);
    await db.client.signal(waitRun, 'go', { fine: true });
    await expect(db.client.wait(waitRun, { timeout: '30s' })).resolves.toMatchObject({
      state: 'completed',
    });
    count('signals_refused');

    // A step output: the step is discarded as permanent, with an error that says why.
    const { runId: outputRun } = await db.client.enqueue('poison.output', { poison: name });
    const output = await stepOf(outputRun);
    expect(output).toMatchObject({ state: 'discarded', error_kind: 'permanent' });
    expect(output.error).toBeTruthy();
    count('outputs_discarded');

    // A thrown value: recorded as safe text; with one attempt, discarded.
    const { runId: throwRun } = await db.client.enqueue(
      'poison.throw',
      { poison: name },
      {
        maxAttempts: 1,
      },
    );
    const thrown = await stepOf(throwRun);
    expect(thrown.state).toBe('discarded');
    expect(thrown.error).toBeTruthy();
    expect(thrown.error!.length).toBeLessThanOrEqual(8 * 1024);
    count('throws_discarded');
  }

  // The worker did not wedge: a normal job completes.
  const { runId } = await db.client.enqueue('poison.echo', { fine: true });
  await expect(db.client.wait(runId, { timeout: '30s' })).resolves.toMatchObject({
    state: 'completed',
  });
  expect(worker.activeSteps).toBe(0);
  reportFigures('poison', {
    cases: Object.keys(poisonPayloads).length,
    ...tally,
    normal_job_after: 'completed',
  });
});
