import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalJson, sha256Hex, stableHash } from './stable-hash.js';

const nodeSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The same object with its keys (at every level) in reverse insertion order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  );
}

describe('sha256Hex', () => {
  test('matches the FIPS 180-4 test vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  test('agrees with node:crypto around the 64-byte block boundaries', () => {
    for (const length of [55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]) {
      const text = 'x'.repeat(length);
      expect(sha256Hex(text)).toBe(nodeSha256(text));
    }
  });

  test('agrees with node:crypto on any Unicode text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        (text) => sha256Hex(text) === nodeSha256(text),
      ),
    );
  });
});

describe('canonicalJson', () => {
  test('sorts keys by UTF-16 code units at every level and writes no whitespace', () => {
    const value = { b: { '2': 2, '10': 1, é: 'ü' }, a: [true, null, 'x'] };
    expect(canonicalJson(value)).toBe('{"a":[true,null,"x"],"b":{"10":1,"2":2,"é":"ü"}}');
  });

  test('reads back as the same data JSON.stringify writes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  test('does not depend on key order', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        (value) => canonicalJson(value) === canonicalJson(reversedKeys(value)),
      ),
    );
  });

  test('follows JSON.stringify for undefined, functions, toJSON, boxed primitives and non-finite numbers', () => {
    const value = {
      gone: undefined,
      fn: () => 1,
      list: [undefined, () => 1, Number.NaN],
      at: new Date(Date.UTC(2024, 0, 2)),
      boxed: new String('s'),
    };
    expect(canonicalJson(value)).toBe(
      '{"at":"2024-01-02T00:00:00.000Z","boxed":"s","list":[null,null,null]}',
    );
  });

  test('refuses what JSON cannot represent', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
    expect(() => canonicalJson({ n: 1n })).toThrow(/BigInt/);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });

  test('accepts the same object twice when it is shared rather than cyclic', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});

describe('stableHash', () => {
  test('is the SHA-256 of the canonical JSON, fixed across processes and versions', () => {
    const value = { b: { '10': 1, '2': 2, é: 'ü' }, a: [true, null, 'x'] };
    expect(stableHash(value)).toBe(
      '73116f93eae3808b63d7c8876c0fab84d211832b24da9e36f285b9014fa90f7e',
    );
  });

  test('does not change with key order', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        (value) => stableHash(value) === stableHash(reversedKeys(value)),
      ),
    );
  });

  test('changes with any change of content', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }),
        fc.nat(),
        (value, pick) => {
          const keys = Object.keys(value);
          const key = keys[pick % keys.length]!;
          const changed = { ...value, [key]: { changed: value[key] ?? null } };
          expect(stableHash(changed)).not.toBe(stableHash(value));
        },
      ),
    );
    expect(stableHash({ a: 1 })).not.toBe(stableHash({ a: '1' }));
    expect(stableHash([1, 2])).not.toBe(stableHash([2, 1]));
  });
});
