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

/**
 * The ids a step counter can give after its random start: 2^25, far above any run's steps or one
 * expansion's items (10,000), so the counter never reaches the 26 bits it has.
 */
const StepCounterHeadroom = 2 ** 25;

/**
 * Makes the ids of a batch of steps of the run `runId` (its steps at submit, or one expansion's
 * items): each is a UUID version 7 whose 48-bit time is the run id's (decision 348), so a step
 * lives in its run's period however much later it is made. After the version comes a 26-bit
 * counter (the 12 bits of `rand_a` and the next 14 of `rand_b`, RFC 9562's fixed-length dedicated
 * counter) that starts at a random value below 2^25 and counts up by one an id, so the ids of one
 * batch are strictly increasing in the order they are made; the last 48 bits are random. Two
 * batches of one run, or the steps of two runs made in one millisecond, share the time: their
 * ids differ by the random start and the random tail. An id equal to the run's own is skipped,
 * since only a job's one step has its run's id (decision 302).
 *
 * @returns a function that gives the batch's next id at each call
 */
export function stepIdsOf(runId: string): () => string {
  const time = runId.replaceAll('-', '').slice(0, 12).toLowerCase();
  if (!/^[0-9a-f]{12}$/i.test(time)) throw new Error(`not a run id: ${runId}`);
  const own = runId.toLowerCase();
  let stepCounter = nextRandom16().readUInt32BE(0) % StepCounterHeadroom;
  const next = (): string => {
    if (stepCounter > 0x3ffffff)
      throw new Error(`more step ids for run ${runId} than one batch may make`);
    const bytes = nextRandom16();
    bytes[6] = 0x70 | ((stepCounter >>> 22) & 0x0f);
    bytes[7] = (stepCounter >>> 14) & 0xff;
    bytes[8] = 0x80 | ((stepCounter >>> 8) & 0x3f);
    bytes[9] = stepCounter & 0xff;
    stepCounter += 1;
    const hex = bytes.toString('hex');
    const id = `${time.slice(0, 8)}-${time.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    return id === own ? next() : id;
  };
  return next;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string is a UUID (any version); ids that are not cannot name a run or a step. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
