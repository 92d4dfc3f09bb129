import { describe, expect, it } from 'vitest';
import { Client } from '@cyclone/client';
import { ValidationError, workflow, type WorkflowDefinition } from '@cyclone/core';
import { Worker } from '../../src/index.js';
import { testLogger } from '../engine.js';
import { eventRows, runRow, stepRow, tableCounts, useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

const valid = workflow('bad-input')
  .task('a', 'bad.a')
  .task('b', 'bad.b', { dependsOn: ['a'] })
  .build();

/** Runs `act`, expects a ValidationError whose message names `path`, and no new rows. */
async function refused(
  act: () => unknown,
  ...fragments: (string | RegExp)[]
): Promise<ValidationError> {
  const before = await tableCounts(engine);
  let error: unknown;
  try {
    await act();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ValidationError);
  const message = (error as Error).message;
  for (const fragment of fragments) {
    if (typeof fragment === 'string') expect(message).toContain(fragment);
    else expect(message).toMatch(fragment);
  }
  expect(await tableCounts(engine)).toEqual(before);
  return error as ValidationError;
}

describe('invalid workflow definitions', () => {
  it('refuses duplicate node names', async () => {
    await refused(
      () => workflow('dup').task('a', 'k').task('a', 'k').build(),
      'nodes[1].name',
      '"a" is already the name of nodes[0]',
    );
  });

  it('refuses a dependency on a node that does not exist', async () => {
    await refused(
      () =>
        workflow('ghost')
          .task('a', 'k', { dependsOn: ['ghost'] })
          .build(),
      'nodes.a.dependsOn[0]',
      '"ghost" is not a node',
    );
  });

  it('refuses a cycle, naming it', async () => {
    await refused(
      () =>
        workflow('loop')
          .task('a', 'k', { dependsOn: ['c'] })
          .task('b', 'k', { dependsOn: ['a'] })
          .task('c', 'k', { dependsOn: ['b'] })
          .build(),
      /dependency cycle (a -> c -> b -> a|a -> b -> c -> a)/,
    );
  });

  it('refuses a bad option and an unknown option, with their paths', async () => {
    await refused(
      () => workflow('opts').task('a', 'k', { maxAttempts: 0 }).build(),
      'nodes.a.maxAttempts',
      'got 0',
    );
    await refused(
      () =>
        workflow('opts')
          .task('a', 'k', { timeout: 'soon' as never })
          .build(),
      'nodes.a.timeout',
    );
    await refused(
      () =>
        workflow('opts')
          .task('a', 'k', { maxAttempt: 2 } as never)
          .build(),
      'nodes.a.maxAttempt',
      'did you mean "maxAttempts"',
    );
  });

  it('refuses a hand-written definition that breaks the rules, writing nothing', async () => {
    const json = JSON.parse(JSON.stringify(valid)) as { nodes: { dependsOn: string[] }[] };
    json.nodes[1]!.dependsOn = ['ghost'];
    await refused(
      () => engine.client.submit(json as unknown as WorkflowDefinition, null),
      'workflow definition "bad-input"',
      'nodes.b.dependsOn[0]',
      '"ghost" is not a node',
    );
  });

  it('refuses a definition whose content no longer matches its hash', async () => {
    const json = JSON.parse(JSON.stringify(valid)) as { nodes: { maxAttempts: number }[] };
    json.nodes[0]!.maxAttempts = 99;
    await refused(
      () => engine.client.submit(json as unknown as WorkflowDefinition, null),
      'workflow definition "bad-input"',
      'hash:',
      'the definition was changed after it was built',
    );
  });

  it('refuses something that is not a definition at all', async () => {
    await refused(
      () => engine.client.submit({ name: 'x' } as unknown as WorkflowDefinition, null),
      'workflow definition',
    );
  });
});

describe('invalid input', () => {
  it('refuses an input holding a function, naming its path', async () => {
    await refused(
      () => engine.client.submit(valid, { order: { notify: () => 1 } }),
      'input.order.notify',
      'function',
    );
  });

  it('refuses a BigInt', async () => {
    await refused(() => engine.client.submit(valid, { amount: 10n }), 'input.amount', 'BigInt');
  });

  it('refuses a cycle', async () => {
    const node: Record<string, unknown> = { name: 'loop' };
    node.self = node;
    await refused(() => engine.client.submit(valid, node), 'input.self', 'cycle');
  });

  it('refuses a string containing \\u0000, which jsonb cannot store', async () => {
    await refused(() => engine.client.submit(valid, { note: 'a\u0000b' }), 'input.note', '\\u0000');
    await refused(() => engine.client.enqueue('bad.job', ['ok', 'x\u0000']), 'args[1]', '\\u0000');
  });

  it('refuses an input over the client maxInputBytes, naming the size and the limit', async () => {
    const small = new Client({ pool: engine.pool, maxInputBytes: 64 });
    try {
      await refused(
        () => small.submit(valid, { text: 'x'.repeat(100) }),
        'input',
        'at most 64 bytes',
      );
      await refused(() => small.enqueue('bad.job', 'y'.repeat(100)), 'args', 'at most 64 bytes');
      // Within the limit it is accepted.
      const { created } = await small.submit(valid, { text: 'short' });
      expect(created).toBe(true);
    } finally {
      await small.close();
    }
  });

  it('refuses the whole batch when one input of submitMany is bad, naming its position', async () => {
    await refused(
      () => engine.client.submitMany(valid, [{ ok: 1 }, { bad: Symbol('s') }, { ok: 3 }]),
      'inputs[1].bad',
    );
    await refused(() => engine.client.enqueueMany('bad.job', [1, 2, Number.NaN]), 'args[2]');
  });

  it('refuses bad submit and enqueue options and a bad job kind', async () => {
    await refused(() => engine.client.submit(valid, null, { maxReclaims: -1 }), 'maxReclaims');
    await refused(
      () => engine.client.submit(valid, null, { bogus: true } as never),
      'submit options',
    );
    await refused(() => engine.client.enqueue('bad.job', null, { maxAttempts: 0 }), 'maxAttempts');
    await refused(() => engine.client.enqueue('not a kind!', null), 'kind');
  });
});

describe('invalid output', () => {
  it("discards a step whose output exceeds the worker's maxOutputBytes, as permanent", async () => {
    await engine.startWorker({
      handlers: { 'bad.big': () => ({ blob: 'z'.repeat(200) }) },
      maxOutputBytes: 64,
    });
    const { runId } = await engine.client.enqueue('bad.big', null, { maxAttempts: 3 });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const step = await stepRow(engine, runId, 'bad.big');
    expect(step).toMatchObject({
      state: 'discarded',
      error_kind: 'permanent',
      attempts: 1,
      output: null,
    });
    expect(step.error).toContain('output');
    expect(step.error).toContain('at most 64 bytes');
    expect(await runRow(engine, runId)).toMatchObject({ state: 'failed', error_kind: 'permanent' });
  });

  it('discards a step whose output is not JSON, as permanent, naming the path', async () => {
    await engine.startWorker({ handlers: { 'bad.bigint': () => ({ total: 5n }) } });
    const { runId } = await engine.client.enqueue('bad.bigint', null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const step = await stepRow(engine, runId, 'bad.bigint');
    expect(step).toMatchObject({ state: 'discarded', error_kind: 'permanent', attempts: 1 });
    expect(step.error).toContain('output.total');
    const types = (await eventRows(engine, runId)).map((e) => e.type);
    expect(types).not.toContain('step_retry_scheduled');
  });
});

describe('invalid worker configuration', () => {
  it('fails at construction when a registered workflow uses a kind with no handler, naming the node and the kind', () => {
    const needs = workflow('needs-handler')
      .task('charge', 'pay.charge')
      .task('ship', 'ship.send', { dependsOn: ['charge'] })
      .build();
    let error: unknown;
    try {
      new Worker({
        connectionString: engine.url,
        handlers: { 'pay.charge': () => 1 },
        workflows: [needs],
        logger: testLogger,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('ship');
    expect((error as Error).message).toContain('"ship.send"');
    expect((error as Error).message).not.toContain('"pay.charge"');
  });

  it('fails at construction on a handler that is not a function or a bad concurrency', () => {
    expect(
      () =>
        new Worker({
          connectionString: engine.url,
          handlers: { 'x.y': 'nope' as never },
          concurrency: 0,
          logger: testLogger,
        }),
    ).toThrow(/handlers\.x\.y.*concurrency|concurrency.*handlers\.x\.y/);
  });

  it('fails at construction on a completion batch size that is not a whole number >= 1', () => {
    for (const completionBatchSize of [0, -5, 2.5]) {
      expect(
        () =>
          new Worker({
            connectionString: engine.url,
            handlers: { 'x.y': () => null },
            completionBatchSize,
            logger: testLogger,
          }),
      ).toThrow(/completionBatchSize: expected a whole number >= 1/);
    }
  });
});
