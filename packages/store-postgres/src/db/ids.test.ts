import { describe, expect, it } from 'vitest';
import { isUuid, uuidv7 } from './ids.js';

describe('uuidv7', () => {
  it('makes version 7 UUIDs', () => {
    const id = uuidv7();
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
  });

  it('makes strictly increasing ids, even many within one millisecond', () => {
    const ids = Array.from({ length: 10_000 }, () => uuidv7(1_700_000_000_000));
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('encodes the time in the first 48 bits', () => {
    const id = uuidv7(Date.now() + 60_000);
    const ms = parseInt(id.replaceAll('-', '').slice(0, 12), 16);
    expect(Math.abs(ms - (Date.now() + 60_000))).toBeLessThan(5_000);
  });
});
