import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';

const fx = useStore();

async function start(def: ReturnType<ReturnType<typeof workflow>['build']>) {
  const run = runOfDefinition(def, 'null');
  await fx.submit(run);
  return { runId: run.id, ids: Object.fromEntries(run.steps.map((s) => [s.node, s.id])) };
}

describe('resuming a run with waits', () => {
  it('hands out a signal buffered during the pause: the paused wait completes at the resume', async () => {
    const def = workflow('resume-signal').waitSignal('approval', { signal: 'approved' }).build();
    const { runId, ids } = await start(def);
    await fx.store.pauseRun(runId);
    expect(await fx.step(ids.approval!)).toMatchObject({ state: 'paused' });

    const receipt = await fx.store.signal({
      runId,
      name: 'approved',
      payloadJson: '"yes"',
      signalId: null,
    });
    expect(receipt.consumedBy).toBeNull();
    expect(await fx.step(ids.approval!)).toMatchObject({ state: 'paused' });

    await fx.store.resumeRun(runId);
    expect(await fx.step(ids.approval!)).toMatchObject({
      state: 'completed',
      output: { payload: 'yes', timedOut: false },
    });
    expect(await fx.run(runId)).toMatchObject({ state: 'completed' });
  });

  it('promotes a wait whose dependency completed during the pause', async () => {
    const def = workflow('resume-promote')
      .task('load', 'resume.load')
      .waitSignal('approval', { signal: 'approved', dependsOn: ['load'] })
      .build();
    const { runId, ids } = await start(def);
    const claimed = await claimOne(fx, 'resume.load');
    await fx.store.pauseRun(runId);
    await fx.store.complete([
      { stepId: claimed.id, claimToken: claimed.claimToken, outputJson: '1' },
    ]);
    await fx.store.settlePending();
    expect(await fx.step(ids.approval!)).toMatchObject({ state: 'pending' });

    await fx.store.resumeRun(runId);
    expect(await fx.step(ids.approval!)).toMatchObject({ state: 'waiting_signal' });
    expect(await fx.run(runId)).toMatchObject({ state: 'running' });
  });
});
