import { describe, expect, it } from 'vitest';
import { LimitedKinds, PerKeyScanExtra } from '../../src/execution/limited-kinds.js';

describe('LimitedKinds', () => {
  it('splits asked-for kinds into known limited and the rest, in their order', () => {
    const kinds = new LimitedKinds();
    expect(kinds.unlimitedOf(['a', 'b'])).toEqual(['a', 'b']);
    expect(kinds.limitedOf(['a', 'b'])).toEqual([]);
    kinds.add('b');
    expect(kinds.unlimitedOf(['a', 'b', 'c'])).toEqual(['a', 'c']);
    expect(kinds.limitedOf(['c', 'b'])).toEqual(['b']);
    kinds.delete('b');
    expect(kinds.limitedOf(['b'])).toEqual([]);
  });

  it('looks twice as far as the last claim passed over, within its bounds', () => {
    const kinds = new LimitedKinds();
    kinds.add('k');
    expect(kinds.scanExtra('k')).toBe(PerKeyScanExtra.least);
    kinds.passedOver('k', 300);
    expect(kinds.scanExtra('k')).toBe(600);
    kinds.passedOver('k', 5_000);
    expect(kinds.scanExtra('k')).toBe(PerKeyScanExtra.most);
    kinds.passedOver('k', 0);
    expect(kinds.scanExtra('k')).toBe(PerKeyScanExtra.least);
    // Learning a kind again keeps what its claims found.
    kinds.passedOver('k', 200);
    kinds.add('k');
    expect(kinds.scanExtra('k')).toBe(400);
  });
});
