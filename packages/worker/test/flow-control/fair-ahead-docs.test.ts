/**
 * The client's README states how many steps of a kind under fair share a worker holds claimed
 * ahead, per slot: the figures are the producer's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FairAheadMs, FairAheadPerSlot } from '../../src/producer.js';

describe('the fair-share local queue in the docs', () => {
  it("states the producer's bounds of the steps claimed ahead per slot", () => {
    const readme = readFileSync(new URL('../../../client/README.md', import.meta.url), 'utf8');
    expect(readme.replace(/\s+/g, ' ')).toContain(
      `a local queue of at most ${String(FairAheadPerSlot)} steps a slot and about ${String(FairAheadMs)} ms of their work`,
    );
  });
});
