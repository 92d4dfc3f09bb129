/**
 * Fair share under a real worker: with one worker of concurrency 1 and quick handlers (which make
 * it claim ahead), a key's backlog does not hold back another key's steps enqueued after it.
 */
import { describe, expect, it } from 'vitest';
import type { StepContext } from '../../src/index.js';
import { eventually, useEngine } from '../engine.js';

const engine = useEngine();

describe('fair share under a worker', () => {
  it("starts all 10 of B's steps before 40 more of A's 1,000 queued before them", async () => {
    const kind = 'fair.worker';
    await engine.client.setFairShare({ kind });
    await engine.client.enqueueMany(
      kind,
      Array.from({ length: 1_000 }, () => ({ key: 'A' })),
      { concurrencyKey: 'A' },
    );
    const started: string[] = [];
    const handler = (ctx: StepContext) => {
      started.push((ctx.input as { key: string }).key);
      return Promise.resolve(null);
    };
    await engine.startWorker({ concurrency: 1, handlers: { [kind]: handler } });
    // Quick handlers: by now the worker keeps a local queue for unlimited kinds.
    await eventually(() => started.length >= 50, '50 of A to start');
    const mark = started.length;
    await engine.client.enqueueMany(
      kind,
      Array.from({ length: 10 }, () => ({ key: 'B' })),
      { concurrencyKey: 'B' },
    );
    await eventually(() => started.filter((k) => k === 'B').length === 10, "B's 10 to start");
    const lastB = started.lastIndexOf('B');
    const aAfter = started.slice(mark, lastB).filter((k) => k === 'A').length;
    expect(aAfter).toBeLessThan(40);
  });
});
