import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

// Random bytes are drawn from the system a few kilobytes at a time: one call per id would cost
// more than the rest of building a bulk submission.
let pool = Buffer.alloc(0);
let offset = 0;
function nextRandom16(): Buffer {
  if (offset + 16 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + 16));
  offset += 16;
  return bytes;
}

/**
 * Generates a UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter, then
 * random bits. Ids made close in time sort close together, so inserting many runs and steps
 * appends to the primary-key index instead of scattering across it; and within one process they
 * are strictly increasing, so rows inserted together keep the order they were made in.
 */
export function uuidv7(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xfff) {
    // 4096 ids in one millisecond: borrow the next millisecond rather than break the order.
    lastMs += 1;
    counter = 0;
  }
  const ms = lastMs;
  const bytes = nextRandom16();
  bytes[0] = Math.floor(ms / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(ms / 2 ** 32) & 0xff;
  bytes[2] = (ms >>> 24) & 0xff;
  bytes[3] = (ms >>> 16) & 0xff;
  bytes[4] = (ms >>> 8) & 0xff;
  bytes[5] = ms & 0xff;
  bytes[6] = 0x70 | ((counter >>> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string is a UUID (any version); ids that are not cannot name a run or a step. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
