/**
 * What a concurrency cap holds, seen from outside the engine: a sampler that reads `cyclone_steps`
 * every few milliseconds on a connection of its own (the running steps of a kind, in all and per
 * concurrency key), and the handlers' own start and return times, lined up across processes. A
 * handler starts after its claim committed and returns before its completion is written, so at no
 * instant do more handlers of a kind run than the table counts running steps.
 */
import type pg from 'pg';
import type { FixtureLine } from './processes.js';
import { TableSampler } from './table-sampler.js';

/** The highest counts a {@link CapSampler} saw. */
export interface CapSamples {
  /** Reads of the table. */
  readonly samples: number;
  /** Most running steps of the kind in one read. */
  readonly maxRunning: number;
  /** Most running steps of one concurrency key in one read (steps without a key as one key). */
  readonly maxPerKey: number;
}

/** Reads the running steps of `kind` in a loop until {@link CapSampler.stop}. */
export class CapSampler extends TableSampler<CapSamples> {
  private maxRunning = 0;
  private maxPerKey = 0;

  constructor(
    url: string,
    private readonly kind: string,
    everyMs?: number,
  ) {
    super(url, 'fault-cap-sampler', everyMs);
  }

  protected async read(client: pg.Client): Promise<void> {
    const { rows } = await client.query<{ total: number; per_key: number }>(
      `SELECT coalesce(sum(n), 0)::int AS total, coalesce(max(n), 0)::int AS per_key
       FROM (SELECT count(*) AS n FROM cyclone_steps
             WHERE kind = $1 AND state = 'running' GROUP BY concurrency_key) k`,
      [this.kind],
    );
    const row = rows[0]!;
    this.maxRunning = Math.max(this.maxRunning, row.total);
    this.maxPerKey = Math.max(this.maxPerKey, row.per_key);
  }

  protected seen(): CapSamples {
    return { samples: this.samples, maxRunning: this.maxRunning, maxPerKey: this.maxPerKey };
  }
}

/** One handler execution, from its `started` line to its `returning` line (or its process's end). */
export interface HandlerSpan {
  readonly stepId: string;
  readonly start: number;
  readonly end: number;
}

/**
 * The handler executions reported by worker processes (`started` and `returning` lines of the
 * same step and attempt). An execution that never returned (its process was killed) ends at
 * `killedAt` of its process, when given, else it is left out.
 */
export function handlerSpans(
  processes: readonly { lines: readonly FixtureLine[]; killedAt?: number }[],
): HandlerSpan[] {
  const spans: HandlerSpan[] = [];
  for (const { lines, killedAt } of processes) {
    const open = new Map<string, number>();
    for (const line of lines) {
      const id = `${String(line.stepId)}:${String(line.attempt)}`;
      if (line.fixture === 'started') open.set(id, line.at as number);
      if (line.fixture === 'returning' && open.has(id)) {
        spans.push({ stepId: line.stepId as string, start: open.get(id)!, end: line.at as number });
        open.delete(id);
      }
    }
    if (killedAt !== undefined) {
      for (const [id, start] of open)
        spans.push({ stepId: id.split(':')[0]!, start, end: killedAt });
    }
  }
  return spans;
}

/**
 * The most spans of one group open at once (`group` of a span; one group when omitted). A span
 * that ends at the same millisecond another starts is over first: a returning handler's step
 * leaves `running` before the next step can take its place.
 */
export function mostAtOnce(
  spans: readonly HandlerSpan[],
  group: (span: HandlerSpan) => string = () => '',
): number {
  const byGroup = new Map<string, { at: number; delta: number }[]>();
  for (const span of spans) {
    const key = group(span);
    const edges = byGroup.get(key) ?? [];
    edges.push({ at: span.start, delta: 1 }, { at: span.end, delta: -1 });
    byGroup.set(key, edges);
  }
  let most = 0;
  for (const edges of byGroup.values()) {
    edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
    let open = 0;
    for (const edge of edges) {
      open += edge.delta;
      most = Math.max(most, open);
    }
  }
  return most;
}
