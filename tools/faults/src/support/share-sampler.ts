/**
 * What fair share holds, seen from outside the engine: a sampler that reads the running steps of a
 * kind per concurrency key from `cyclone_steps` every few milliseconds on a connection of its own:
 * how often every key ran at once (none held back by another's backlog), and each key's share of
 * the running steps over a drain; and the order in which the handlers of several processes started, by their
 * own clocks.
 */
import type pg from 'pg';
import type { FixtureLine } from './processes.js';
import { TableSampler } from './table-sampler.js';

/** What a {@link ShareSampler} saw. */
export interface ShareSamples {
  /** Reads of the table. */
  readonly samples: number;
  /** Reads that saw a running step. */
  readonly busySamples: number;
  /** Reads that saw a running step of every key in `keys` at once. */
  readonly allKeysSamples: number;
  /** Each key's running steps summed over every read, over the sum for all keys (none: `(none)`). */
  readonly shares: ReadonlyMap<string, number>;
}

/** Reads the running steps of `kind`, by key, in a loop until {@link ShareSampler.stop}. */
export class ShareSampler extends TableSampler<ShareSamples> {
  private busySamples = 0;
  private allKeysSamples = 0;
  private readonly sums = new Map<string, number>();

  constructor(
    url: string,
    private readonly kind: string,
    /** The keys whose running together {@link ShareSamples.allKeysSamples} counts. */
    private readonly keys: readonly string[],
    everyMs?: number,
  ) {
    super(url, 'fault-share-sampler', everyMs);
  }

  protected async read(client: pg.Client): Promise<void> {
    const { rows } = await client.query<{ key: string | null; n: number }>(
      `SELECT concurrency_key AS key, count(*)::int AS n FROM cyclone_steps
       WHERE kind = $1 AND state = 'running' GROUP BY concurrency_key`,
      [this.kind],
    );
    if (rows.length > 0) this.busySamples += 1;
    const seen = new Set(rows.map((r) => r.key));
    if (this.keys.every((key) => seen.has(key))) this.allKeysSamples += 1;
    for (const row of rows) {
      const key = row.key ?? '(none)';
      this.sums.set(key, (this.sums.get(key) ?? 0) + row.n);
    }
  }

  protected seen(): ShareSamples {
    let total = 0;
    for (const n of this.sums.values()) total += n;
    const shares = new Map([...this.sums].map(([key, n]) => [key, total === 0 ? 0 : n / total]));
    return {
      samples: this.samples,
      busySamples: this.busySamples,
      allKeysSamples: this.allKeysSamples,
      shares,
    };
  }
}

/** One handler start reported by a worker process. */
export interface HandlerStart {
  readonly stepId: string;
  readonly at: number;
  readonly worker: string;
}

/**
 * The first attempts' starts reported by worker processes (`started` lines), in the order of their
 * processes' clocks (one machine, one clock), ties kept in the order read.
 */
export function handlerStarts(
  processes: readonly { name: string; lines: readonly FixtureLine[] }[],
): HandlerStart[] {
  const starts: HandlerStart[] = [];
  for (const { name, lines } of processes) {
    for (const line of lines) {
      if (line.fixture !== 'started' || line.attempt !== 1) continue;
      starts.push({ stepId: line.stepId as string, at: line.at as number, worker: name });
    }
  }
  return starts.sort((a, b) => a.at - b.at);
}
