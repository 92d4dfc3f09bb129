import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCycloneError } from './errors.js';
import {
  assertTextValue,
  characterLength,
  findIllFormedText,
  textValue,
  textValueIssue,
} from './text-value.js';

const key = { maxLength: 8 };

// Any UTF-16 code unit, with the interesting ones often: U+0000, both surrogate halves, U+FFFD.
const codeUnit = fc.oneof(
  fc.constantFrom('\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFFFD', 'a'),
  fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
);

describe('findIllFormedText', () => {
  it('finds U+0000 and lone surrogates, and accepts surrogate pairs', () => {
    expect(findIllFormedText('ab\u0000c')).toEqual({ problem: 'nul', index: 2 });
    expect(findIllFormedText('k\uD800')).toEqual({ problem: 'lone_surrogate', index: 1 });
    expect(findIllFormedText('k\uDBFF')).toEqual({ problem: 'lone_surrogate', index: 1 });
    expect(findIllFormedText('\uDC00k')).toEqual({ problem: 'lone_surrogate', index: 0 });
    expect(findIllFormedText('\uD83D\uDE00\uDC00')).toEqual({
      problem: 'lone_surrogate',
      index: 2,
    });
    expect(findIllFormedText('k\uFFFD \uD83D\uDE00 é')).toBeUndefined();
  });

  it('agrees with TextEncoder: well-formed exactly when UTF-8 round-trips and has no U+0000', () => {
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: codeUnit }), (text) => {
        const roundTrips = decoder.decode(encoder.encode(text)) === text;
        expect(findIllFormedText(text) === undefined).toBe(roundTrips && !text.includes('\u0000'));
      }),
    );
  });
});

describe('characterLength', () => {
  it('counts code points, so a pair counts once', () => {
    expect(characterLength('')).toBe(0);
    expect(characterLength('abc')).toBe(3);
    expect(characterLength('\uD83D\uDE00')).toBe(1);
    expect(characterLength('a\uD800b')).toBe(3);
  });
});

describe('textValueIssue', () => {
  it('accepts well-formed strings within the bounds', () => {
    expect(textValueIssue('k', key)).toBeUndefined();
    expect(textValueIssue('\uD83D\uDE00'.repeat(8), key)).toBeUndefined();
    expect(textValueIssue('', { maxLength: 8, minLength: 0 })).toBeUndefined();
  });

  it('says what was wrong, where, and what was expected', () => {
    expect(textValueIssue('k\u0000', key, 'an idempotency key')).toBe(
      'contains U+0000 at index 1, expected an idempotency key: a non-empty string without U+0000 or lone surrogates, at most 8 characters',
    );
    expect(textValueIssue('k\uD800', key)).toBe(
      'contains a lone surrogate U+D800 at index 1, expected a non-empty string without U+0000 or lone surrogates, at most 8 characters',
    );
    expect(textValueIssue('', key)).toMatch(/^is empty, expected a non-empty string/);
    expect(textValueIssue('123456789', key)).toMatch(/^has 9 characters, expected .* at most 8/);
    expect(textValueIssue(42, key)).toMatch(/, got number$/);
    expect(textValueIssue('ab', { maxLength: 8, minLength: 3 })).toMatch(/3 to 8 characters$/);
  });
});

describe('textValue', () => {
  const schema = textValue('an idempotency key', key);

  it('parses a valid string unchanged', () => {
    expect(schema.parse('k\uFFFD')).toBe('k\uFFFD');
  });

  it('refuses U+0000, lone surrogates, bad lengths and non-strings with one issue each', () => {
    for (const bad of ['k\u0000', 'k\uD800', 'k\uDBFF', '', 'x'.repeat(9), 7, null]) {
      const result = schema.safeParse(bad);
      expect(result.success).toBe(false);
      expect(result.error?.issues).toHaveLength(1);
      expect(result.error?.issues[0]?.message).toContain(
        'expected an idempotency key: a non-empty string without U+0000 or lone surrogates, at most 8 characters',
      );
    }
  });

  it('stops before later refinements, so a pattern message never hides the text problem', () => {
    const named = textValue('a kind', key).regex(/^[a-z]+$/, 'expected lowercase letters');
    const result = named.safeParse('a\u0000');
    expect(result.error?.issues.map((i) => i.message)).toEqual([
      expect.stringContaining('contains U+0000 at index 1'),
    ]);
    expect(named.safeParse('AB').error?.issues[0]?.message).toBe('expected lowercase letters');
  });
});

describe('assertTextValue', () => {
  it('returns a valid value and throws a ValidationError naming the path otherwise', () => {
    expect(assertTextValue('id-1', 'signal', 'id', key)).toBe('id-1');
    expect(() => assertTextValue('id\u0000', 'signal', 'id', key)).toThrow(
      /^invalid signal: id: contains U\+0000 at index 2, expected/,
    );
    try {
      assertTextValue('\uDFFF', 'signal', 'id', { ...key, what: 'a signal id' });
      expect.unreachable();
    } catch (error) {
      expect(isCycloneError(error, 'VALIDATION')).toBe(true);
      expect(String(error)).toContain('expected a signal id: a non-empty string');
    }
  });
});
