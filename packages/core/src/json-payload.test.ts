import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ValidationError } from './errors.js';
import { encodePayload, joinPath, payloadByteLength } from './json-payload.js';

const options = { maxBytes: 1_048_576, subject: 'run input', path: 'input' };

/** The ValidationError that `fn` throws. */
function rejection(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

/** Encodes and returns the single issue the value produces. */
function onlyIssue(value: unknown) {
  const error = rejection(() => encodePayload(value, options));
  expect(error.subject).toBe('run input');
  expect(error.issues).toHaveLength(1);
  return error.issues[0]!;
}

class Money {
  constructor(readonly cents: number) {}
}

describe('encodePayload accepts', () => {
  test('any JSON value, written exactly as JSON.stringify writes it', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        (value) => encodePayload(value, options) === JSON.stringify(value),
      ),
    );
  });

  test('a Date as its ISO string, and any value through its toJSON', () => {
    const text = encodePayload(
      { at: new Date(Date.UTC(2024, 4, 1)), money: { toJSON: () => '12.50 EUR' } },
      options,
    );
    expect(JSON.parse(text)).toEqual({ at: '2024-05-01T00:00:00.000Z', money: '12.50 EUR' });
  });

  test('an object property holding undefined, leaving it out as JSON does', () => {
    expect(encodePayload({ a: 1, note: undefined }, options)).toBe('{"a":1}');
  });

  test('objects without a prototype, and one object referenced twice without a cycle', () => {
    const bare = Object.assign(Object.create(null) as object, { x: 1 });
    const shared = { y: 2 };
    expect(encodePayload({ bare, p: shared, q: [shared] }, options)).toBe(
      '{"bare":{"x":1},"p":{"y":2},"q":[{"y":2}]}',
    );
  });

  test('a payload of exactly maxBytes', () => {
    const text = JSON.stringify('é'.repeat(10)); // 2 quotes + 20 bytes
    expect(encodePayload('é'.repeat(10), { ...options, maxBytes: 22 })).toBe(text);
  });

  test('plain data, nested beyond the fast path, and values it hands to the full check', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.integer({ min: 30, max: 40 }),
        (leaf, depth) => {
          let value: unknown = leaf;
          for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value };
          return encodePayload(value, options) === JSON.stringify(value);
        },
      ),
    );
    const mixed = { list: [1, 'two', { at: new Date(0) }], n: null, t: true };
    expect(encodePayload(mixed, options)).toBe(JSON.stringify(mixed));
  });

  test('a getter read once, its value written as read', () => {
    let reads = 0;
    const value = {
      get n() {
        reads += 1;
        return reads;
      },
    };
    expect(encodePayload(value, options)).toBe('{"n":1}');
    expect(reads).toBe(1);
  });

  test('paired surrogates (emoji) in strings and keys', () => {
    expect(encodePayload({ '🙂': '🎉' }, options)).toBe('{"🙂":"🎉"}');
  });
});

describe('encodePayload rejects, naming the path of the offending value', () => {
  test('undefined at the top level', () => {
    const issue = onlyIssue(undefined);
    expect(issue.path).toBe('input');
    expect(issue.message).toMatch(/undefined is not JSON.*expected a JSON value/);
  });

  test('undefined inside an array, which JSON would turn into null', () => {
    expect(onlyIssue({ list: [1, undefined] })).toEqual({
      path: 'input.list[1]',
      message: expect.stringMatching(/undefined in an array, which JSON writes as null/),
    });
  });

  test('a hole in a sparse array', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(onlyIssue([1, , 3])).toEqual({
      path: 'input[1]',
      message: expect.stringContaining('a hole in a sparse array'),
    });
  });

  test('functions and symbols, which JSON would drop silently', () => {
    expect(onlyIssue({ callback: () => 1 })).toEqual({
      path: 'input.callback',
      message: expect.stringMatching(/a function is not JSON.*would drop it/),
    });
    expect(onlyIssue({ tag: Symbol('t') })).toEqual({
      path: 'input.tag',
      message: expect.stringContaining('a symbol is not JSON'),
    });
  });

  test('BigInt', () => {
    expect(onlyIssue({ id: 12n })).toEqual({
      path: 'input.id',
      message: expect.stringMatching(/a BigInt \(12n\) is not JSON, expected a number or a string/),
    });
  });

  test('NaN and infinities, which JSON would write as null', () => {
    expect(onlyIssue({ ratio: Number.NaN })).toEqual({
      path: 'input.ratio',
      message: expect.stringMatching(/NaN is not JSON.*expected a finite number/),
    });
    expect(onlyIssue([Number.POSITIVE_INFINITY]).path).toBe('input[0]');
  });

  test('an invalid Date', () => {
    expect(onlyIssue({ at: new Date(Number.NaN) })).toEqual({
      path: 'input.at',
      message: expect.stringContaining('an invalid Date'),
    });
  });

  test('class instances without toJSON, such as Map, Set and user classes', () => {
    expect(onlyIssue({ m: new Map([[1, 2]]) })).toEqual({
      path: 'input.m',
      message: expect.stringMatching(/an instance of Map is not a plain object or array/),
    });
    expect(onlyIssue({ s: new Set([1]) }).message).toContain('instance of Set');
    expect(onlyIssue({ price: new Money(5) }).message).toContain('instance of Money');
  });

  test('cycles, saying where the value refers back to', () => {
    const order: Record<string, unknown> = { id: 1 };
    order.items = [{ order }];
    expect(onlyIssue(order)).toEqual({
      path: 'input.items[0].order',
      message: expect.stringMatching(/a cycle: this refers back to input, expected a tree/),
    });
  });

  test('\\u0000 in a string or a property name, which Postgres jsonb cannot store', () => {
    expect(onlyIssue({ note: 'a\u0000b' })).toEqual({
      path: 'input.note',
      message: expect.stringMatching(
        /a string containing \\u0000 \(at index 1\), which Postgres jsonb cannot store/,
      ),
    });
    expect(onlyIssue({ 'k\u0000': 1 })).toEqual({
      path: 'input["k\\u0000"]',
      message: expect.stringContaining('a property name containing \\u0000'),
    });
  });

  test('an unpaired UTF-16 surrogate, which Postgres rejects', () => {
    expect(onlyIssue(['ok', 'x\ud800'])).toEqual({
      path: 'input[1]',
      message: expect.stringContaining('unpaired UTF-16 surrogate (at index 1)'),
    });
  });

  test('a payload larger than maxBytes, saying the size and the limit', () => {
    const error = rejection(() =>
      encodePayload('é'.repeat(10), {
        maxBytes: 21,
        subject: 'output of node "charge"',
        path: 'output',
      }),
    );
    expect(error.subject).toBe('output of node "charge"');
    expect(error.issues).toEqual([
      { path: 'output', message: 'is 22 bytes of UTF-8 JSON, expected at most 21 bytes' },
    ]);
    expect(error.message).toContain('invalid output of node "charge": output: is 22 bytes');
  });

  test('a value whose getter or toJSON throws', () => {
    const broken = {
      get total(): number {
        throw new Error('not loaded');
      },
    };
    expect(onlyIssue(broken).message).toContain('could not be serialised to JSON: not loaded');
  });

  test('every problem at once, up to 20, then says more were left out', () => {
    const error = rejection(() => encodePayload({ a: Number.NaN, b: [undefined], c: 1n }, options));
    expect(error.issues.map((i) => i.path)).toEqual(['input.a', 'input.b[0]', 'input.c']);
    const many = rejection(() =>
      encodePayload(
        Array.from({ length: 50 }, () => Number.NaN),
        options,
      ),
    );
    expect(many.issues).toHaveLength(21);
    expect(many.issues[20]!.message).toContain('further problems not listed (stopped after 20)');
  });

  test('without a path option, paths start at the value itself', () => {
    const error = rejection(() =>
      encodePayload({ a: { b: Number.NaN } }, { maxBytes: 100, subject: 'signal payload' }),
    );
    expect(error.issues[0]!.path).toBe('a.b');
  });
});

describe('payloadByteLength', () => {
  test('counts UTF-8 bytes without encoding', () => {
    expect(payloadByteLength('')).toBe(0);
    expect(payloadByteLength('abc')).toBe(3);
    expect(payloadByteLength('é')).toBe(2);
    expect(payloadByteLength('€')).toBe(3);
    expect(payloadByteLength('🙂')).toBe(4);
  });

  test('agrees with TextEncoder on any UTF-16 text, lone surrogates included', () => {
    const unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(
        fc.string({ unit, maxLength: 100 }),
        (text) => payloadByteLength(text) === new TextEncoder().encode(text).length,
      ),
    );
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        (text) => payloadByteLength(text) === new TextEncoder().encode(text).length,
      ),
    );
  });
});

describe('joinPath', () => {
  test('writes identifiers with dots, indexes in brackets and other names quoted', () => {
    expect(joinPath('nodes', 'charge', 'maxAttempts')).toBe('nodes.charge.maxAttempts');
    expect(joinPath('nodes', 'list-items', 'dependsOn', 2)).toBe('nodes.list-items.dependsOn[2]');
    expect(joinPath('nodes', 'payments.charge')).toBe('nodes["payments.charge"]');
    expect(joinPath('', 'a', 0)).toBe('a[0]');
    expect(joinPath('', 0)).toBe('[0]');
  });
});
