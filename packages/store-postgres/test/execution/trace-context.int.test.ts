import { describe, expect, it } from 'vitest';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';

const fx = useStore();

describe('trace context', () => {
  it('stores the trace context given at submit and hands it to the claim', async () => {
    const traceContext = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    await fx.submit(runOfJob('trace.with', 'null', { traceContext }));
    const claimed = await claimOne(fx, 'trace.with');
    expect(claimed.traceContext).toEqual(traceContext);
    expect((await fx.run(claimed.runId)).trace_context).toEqual(traceContext);
  });

  it('claims a run submitted without one with a null trace context and its queue wait', async () => {
    await fx.job('trace.without');
    const claimed = await claimOne(fx, 'trace.without');
    expect(claimed.traceContext).toBeNull();
    expect(claimed.queueWaitMs).toBeGreaterThanOrEqual(0);
  });
});
