import { describe, expect, it } from 'vitest';
import { isUuid, stepIdsOf, uuidv7 } from './ids.js';

/** The 48-bit time of a UUID version 7, in Unix milliseconds. */
const timeOf = (id: string) => parseInt(id.replaceAll('-', '').slice(0, 12), 16);
/** The 26-bit counter of a step id: `rand_a` and the 14 bits of `rand_b` after the variant. */
const counterOf = (id: string) => {
  const hex = id.replaceAll('-', '');
  return (
    (parseInt(hex.slice(13, 16), 16) << 14) |
    ((parseInt(hex.slice(16, 18), 16) & 0x3f) << 8) |
    parseInt(hex.slice(18, 20), 16)
  );
};
const isVersion7 = (id: string) => id[14] === '7' && ['8', '9', 'a', 'b'].includes(id[19]!);

describe('uuidv7', () => {
  it('makes version 7 UUIDs', () => {
    const id = uuidv7();
    expect(isUuid(id)).toBe(true);
    expect(isVersion7(id)).toBe(true);
  });

  it('makes strictly increasing ids, even many within one millisecond', () => {
    const ids = Array.from({ length: 10_000 }, () => uuidv7(1_700_000_000_000));
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('encodes the time in the first 48 bits', () => {
    const id = uuidv7(Date.now() + 60_000);
    expect(Math.abs(timeOf(id) - (Date.now() + 60_000))).toBeLessThan(5_000);
  });
});

describe('stepIdsOf', () => {
  it("gives every step id its run's 48-bit time, however long after the run it is made", () => {
    // A run made in the last millisecond of a day, its steps made two days later.
    const runId = '019b7c01-03ff-7000-8000-000000000000';
    expect(new Date(timeOf(runId)).toISOString()).toBe('2026-01-01T23:59:59.999Z');
    uuidv7(Date.UTC(2026, 0, 3));
    const ids = Array.from({ length: 1_000 }, stepIdsOf(runId));
    expect(new Set(ids.map(timeOf))).toEqual(new Set([timeOf(runId)]));
    expect(ids.every((id) => id.slice(0, 13) === runId.slice(0, 13))).toBe(true);
  });

  it('makes valid version 7 UUIDs (version and variant bits)', () => {
    const next = stepIdsOf(uuidv7());
    for (let i = 0; i < 1_000; i++) {
      const id = next();
      expect(isUuid(id), id).toBe(true);
      expect(isVersion7(id), id).toBe(true);
    }
  });

  it('makes strictly increasing ids within a batch, the counter one up an id', () => {
    const next = stepIdsOf(uuidv7());
    const ids = Array.from({ length: 10_000 }, next);
    expect([...ids].sort()).toEqual(ids);
    for (let i = 1; i < ids.length; i++)
      expect(counterOf(ids[i]!)).toBe(counterOf(ids[i - 1]!) + 1);
    // The counter starts below half its range, so a batch never runs out of it.
    expect(counterOf(ids[0]!)).toBeLessThan(2 ** 25);
  });

  it("never gives the run's own id, which only a job's step has, and takes a run id in upper case", () => {
    const runId = uuidv7();
    const upper = stepIdsOf(runId.toUpperCase());
    const ids = Array.from({ length: 100 }, upper);
    expect(ids).not.toContain(runId);
    expect(ids.every((id) => id === id.toLowerCase() && timeOf(id) === timeOf(runId))).toBe(true);
  });

  it('makes distinct ids for two batches of one run and for runs of one millisecond', () => {
    const ms = 1_700_000_000_000;
    const runs = Array.from({ length: 100 }, () => uuidv7(ms));
    const ids = runs.flatMap((runId) => [
      ...Array.from({ length: 50 }, stepIdsOf(runId)),
      ...Array.from({ length: 50 }, stepIdsOf(runId)),
    ]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuses a run id that is not a UUID', () => {
    expect(() => stepIdsOf('not-a-run')).toThrow('not a run id');
  });
});
