import { describe, expect, it } from 'vitest';
import type { Completion } from '@cyclone/store-postgres';
import { BatchCompleter, MaxBatchOutputChars } from './recorder.js';

/**
 * The batcher's scheduling against a store that records each batch and answers when told: what
 * is checked here is which completions go together and when, not what the database does with
 * them (the engine's tests write real batches).
 */
function recordingStore() {
  const batches: string[][] = [];
  const pending: (() => void)[] = [];
  let holding = false;
  const store = {
    complete(completions: readonly Completion[]): Promise<Set<string>> {
      const ids = completions.map((c) => c.stepId);
      batches.push(ids);
      const answer = () => new Set(ids);
      if (!holding) return Promise.resolve(answer());
      return new Promise((resolve) => pending.push(() => resolve(answer())));
    },
  };
  return {
    store,
    batches,
    /** Holds every write until `release`: the batch in flight stays in flight. */
    hold() {
      holding = true;
    },
    /** Answers the writes held so far, and stops holding. */
    release() {
      holding = false;
      for (const answer of pending.splice(0)) answer();
    },
  };
}

const retry = { budgetMs: 0, onRetry: () => undefined };
const completion = (stepId: string, outputJson = 'null'): Completion => ({
  stepId,
  claimToken: 'token',
  outputJson,
});

describe('BatchCompleter', () => {
  it('writes one batch at a time: what arrives meanwhile goes in the next batch, whole', async () => {
    const s = recordingStore();
    const completer = new BatchCompleter(s.store, 500, retry);
    s.hold();
    const first = completer.complete(completion('a'));
    await Promise.resolve();
    await Promise.resolve();
    expect(s.batches).toEqual([['a']]);
    const later = ['b', 'c', 'd'].map((id) => completer.complete(completion(id)));
    await new Promise((resolve) => setImmediate(resolve));
    // While 'a' is being written, no second batch is in flight.
    expect(s.batches).toEqual([['a']]);
    s.release();
    expect(await Promise.all([first, ...later])).toEqual([true, true, true, true]);
    expect(s.batches).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('takes at most the batch size, and stops a batch at the size cap of its outputs', async () => {
    const s = recordingStore();
    const completer = new BatchCompleter(s.store, 2, retry);
    const ids = ['a', 'b', 'c', 'd', 'e'];
    await Promise.all(ids.map((id) => completer.complete(completion(id))));
    expect(s.batches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);

    const large = '"' + 'x'.repeat(MaxBatchOutputChars / 2) + '"';
    const sized = recordingStore();
    const bySize = new BatchCompleter(sized.store, 500, retry);
    await Promise.all(['f', 'g', 'h'].map((id) => bySize.complete(completion(id, large))));
    // Two such outputs pass the cap: each batch takes one (a batch always takes at least one).
    expect(sized.batches).toEqual([['f'], ['g'], ['h']]);
  });

  it("holds at most the workflow cap in a batch with a workflow step's completion", async () => {
    const s = recordingStore();
    const completer = new BatchCompleter(s.store, 500, retry, 2);
    s.hold();
    const first = completer.complete(completion('x'));
    await Promise.resolve();
    await Promise.resolve();
    const job = (id: string) => completer.complete(completion(id));
    const step = (id: string) => completer.complete(completion(id), { workflowStep: true });
    const later = [job('a'), job('b'), job('c'), step('d'), step('e'), step('f'), job('g')];
    await new Promise((resolve) => setImmediate(resolve));
    s.release();
    expect(await Promise.all([first, ...later])).toEqual(Array(8).fill(true));
    // Jobs alone fill a batch up to its size; a workflow step's completion past the smaller cap
    // starts the next batch, and a batch that holds one stops at the cap.
    expect(s.batches).toEqual([['x'], ['a', 'b', 'c'], ['d', 'e'], ['f', 'g']]);
  });

  it('writes every completion once however their arrivals interleave with the writes', async () => {
    const s = recordingStore();
    const completer = new BatchCompleter(s.store, 7, retry);
    const total = 300;
    let sent = 0;
    const results: Promise<boolean>[] = [];
    // Each answered completion sends the next one after 0-5 turns of the microtask queue: some
    // arrive while the loop writing batches runs, some just after it found the queue empty.
    const send = (): void => {
      const n = sent++;
      const result = completer.complete(completion(`s${n}`));
      results.push(result);
      void result.then(async () => {
        for (let k = 0; k < n % 6; k++) await Promise.resolve();
        if (sent < total) send();
      });
    };
    // One chain: a completion left unwritten stops it, and the poll below ends at its deadline.
    send();
    const deadline = Date.now() + 5_000;
    while (s.batches.flat().length < total && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(sent).toBe(total);
    expect((await Promise.all(results)).every(Boolean)).toBe(true);
    expect(s.batches.flat().sort()).toEqual(
      Array.from({ length: total }, (_, i) => `s${i}`).sort(),
    );
  });
});
