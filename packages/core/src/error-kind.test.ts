import { describe, expect, it } from 'vitest';
import { DISCARD_REASONS, ERROR_KIND_TERMINAL, ERROR_KINDS } from './error-kind.js';

describe('ERROR_KIND_TERMINAL', () => {
  it('classifies every error kind as the reference does', () => {
    expect(ERROR_KIND_TERMINAL).toEqual({
      retryable: 'both',
      permanent: 'yes',
      deadline: 'yes',
      reclaim_limit: 'yes',
      snooze: 'no',
      transient: 'no',
    });
    expect(Object.keys(ERROR_KIND_TERMINAL).sort()).toEqual([...ERROR_KINDS].sort());
  });

  it('marks as able to end a step exactly the kinds a discarded step can carry', () => {
    const ending = ERROR_KINDS.filter((kind) => ERROR_KIND_TERMINAL[kind] !== 'no');
    expect(ending).toEqual([...DISCARD_REASONS]);
  });
});
