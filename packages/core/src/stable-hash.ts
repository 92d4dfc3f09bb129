/**
 * Canonical JSON and a content hash that does not depend on key order, process or platform. A
 * workflow definition's `hash` is built from these, so a worker and a client that built the same
 * definition agree on its identity without sharing code.
 *
 * @packageDocumentation
 */

/**
 * The JSON text of `value` in canonical form: what `JSON.stringify(value)` writes (same `toJSON`
 * calls, same omission of `undefined`, functions and symbols in objects, same `null` for them in
 * arrays), but with every object's keys sorted by UTF-16 code units and no whitespace. Two values
 * that differ only in key order give the same text. This is the ordering of RFC 8785 (JCS).
 *
 * @throws TypeError for a cycle, a BigInt, or a top-level value JSON cannot represent (`undefined`,
 *   a function, a symbol)
 */
export function canonicalJson(value: unknown): string {
  const text = write(value, '', new Set());
  if (text === undefined) {
    throw new TypeError(`canonicalJson: ${typeof value} has no JSON representation`);
  }
  return text;
}

/**
 * A hex SHA-256 digest of {@link canonicalJson}(value): stable across processes, platforms and key
 * order, and different for any change of content.
 */
export function stableHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

function write(value: unknown, key: string, ancestors: Set<object>): string | undefined {
  let current = value;
  if (isObjectLike(current) && typeof (current as { toJSON?: unknown }).toJSON === 'function') {
    current = (current as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  // JSON.stringify unwraps boxed primitives (new Number(1)); do the same.
  if (current instanceof Number || current instanceof String || current instanceof Boolean) {
    current = current.valueOf();
  }
  switch (typeof current) {
    case 'string':
      return JSON.stringify(current);
    case 'number':
      return Number.isFinite(current) ? JSON.stringify(current) : 'null';
    case 'boolean':
      return current ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('canonicalJson: a BigInt has no JSON representation');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (current === null) return 'null';
  const object = current as object;
  if (ancestors.has(object)) throw new TypeError('canonicalJson: the value contains a cycle');
  ancestors.add(object);
  let text: string;
  if (Array.isArray(object)) {
    const items = (object as unknown[]).map(
      (item, index) => write(item, String(index), ancestors) ?? 'null',
    );
    text = `[${items.join(',')}]`;
  } else {
    const record = object as Record<string, unknown>;
    const members: string[] = [];
    // Array.prototype.sort without a comparator orders by UTF-16 code units, as JCS requires.
    for (const name of Object.keys(record).sort()) {
      const member = write(record[name], name, ancestors);
      if (member !== undefined) members.push(`${JSON.stringify(name)}:${member}`);
    }
    text = `{${members.join(',')}}`;
  }
  ancestors.delete(object);
  return text;
}

function isObjectLike(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'bigint';
}

// SHA-256 (FIPS 180-4), written out because core may not import node:crypto and WebCrypto's digest
// is asynchronous. Definitions are small, so a plain implementation is fast enough.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/**
 * The SHA-256 digest of the UTF-8 encoding of `text`, as 64 lowercase hex digits. Lone UTF-16
 * surrogates are encoded as U+FFFD, as `TextEncoder` does.
 */
export function sha256Hex(text: string): string {
  const bytes = new TextEncoder().encode(text);
  // Pad: the bytes, 0x80, zeros, then the bit length as a 64-bit big-endian number.
  const paddedLength = Math.ceil((bytes.length + 9) / 64) * 64;
  const padded = new Uint8Array(paddedLength);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bitLength = bytes.length * 8;
  view.setUint32(paddedLength - 8, Math.floor(bitLength / 0x1_0000_0000));
  view.setUint32(paddedLength - 4, bitLength >>> 0);

  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < paddedLength; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const w15 = w[i - 15]!;
      const w2 = w[i - 2]!;
      const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
      const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
      w[i] = w[i - 16]! + s0 + w[i - 7]! + s1;
    }
    let [a, b, c, d, e, f, g, hh] = [h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!];
    for (let i = 0; i < 64; i++) {
      const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const choice = (e & f) ^ (~e & g);
      const t1 = (hh + s1 + choice + K[i]! + w[i]!) >>> 0;
      const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (s0 + majority) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] = h[0]! + a;
    h[1] = h[1]! + b;
    h[2] = h[2]! + c;
    h[3] = h[3]! + d;
    h[4] = h[4]! + e;
    h[5] = h[5]! + f;
    h[6] = h[6]! + g;
    h[7] = h[7]! + hh;
  }
  return Array.from(h, (word) => word.toString(16).padStart(8, '0')).join('');
}

function rotr(x: number, n: number): number {
  return (x >>> n) | (x << (32 - n));
}
