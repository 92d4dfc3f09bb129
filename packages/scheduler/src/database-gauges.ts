import type { Registry } from 'prom-client';
import type { FlowLimitMetrics, MetricsReads, MetricsSnapshot } from '@cyclone/store-postgres';
import type { PromClient } from './load-prom-client.js';

/** Most kinds a process keeps reporting once found, so a stream of new kinds cannot grow it. */
const MaxRememberedKinds = 1_000;

/** One gauge of the vocabulary: its name, meaning, labels, and its samples in a snapshot. */
interface GaugeDefinition {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly samples: (snapshot: MetricsSnapshot) => [Record<string, string>, number][];
}

/** One sample per limit of each limited kind, labelled `concurrency` or `rate`. */
function limitSamples(
  snapshot: MetricsSnapshot,
  value: (limit: FlowLimitMetrics) => number,
): [Record<string, string>, number][] {
  return snapshot.limits.flatMap(({ kind, concurrency, rate }) => [
    ...(concurrency === null
      ? []
      : [[{ kind, limit: 'concurrency' }, value(concurrency)] as [Record<string, string>, number]]),
    ...(rate === null
      ? []
      : [[{ kind, limit: 'rate' }, value(rate)] as [Record<string, string>, number]]),
  ]);
}

/**
 * The gauges Cyclone reads from the database, by name. The worker and the HTTP server print them
 * through {@link DatabaseGauges}, so each name means the same everywhere.
 */
export const DatabaseGaugeDefinitions = {
  queueAvailable: {
    name: 'cyclone_queue_available_steps',
    help: 'Available steps by handler kind, whether their time has come or not (backoff, snooze, delay); counted up to 100000',
    labelNames: ['kind'],
    samples: (s) => s.queues.map((q) => [{ kind: q.kind }, q.available]),
  },
  queueReady: {
    name: 'cyclone_queue_ready_steps',
    help: 'Available steps by handler kind whose time has come (claimable now); counted up to 100000',
    labelNames: ['kind'],
    samples: (s) => s.queues.map((q) => [{ kind: q.kind }, q.ready]),
  },
  queueOldestReadyAge: {
    name: 'cyclone_queue_oldest_ready_age_seconds',
    help: 'Seconds since the oldest ready step of each handler kind became ready, by the database clock (0 when none is)',
    labelNames: ['kind'],
    samples: (s) => s.queues.map((q) => [{ kind: q.kind }, q.oldestReadyAgeSeconds]),
  },
  queueFairShareKeys: {
    name: 'cyclone_queue_fair_share_keys',
    help: 'Concurrency keys with claimable steps, by handler kind under fair share (steps without a key not counted); counted over at most 100000 claimable steps',
    labelNames: ['kind'],
    samples: (s) =>
      s.queues.flatMap((q) =>
        q.fairShareKeys === null
          ? []
          : [[{ kind: q.kind }, q.fairShareKeys] as [Record<string, string>, number]],
      ),
  },
  dlq: {
    name: 'cyclone_dlq_steps',
    help: 'Discarded steps (the DLQ) by reason (error kind); counted up to 100000',
    labelNames: ['reason'],
    samples: (s) => s.exhausted.map((e) => [{ reason: e.reason }, e.steps]),
  },
  runs: {
    name: 'cyclone_runs',
    help: 'Runs by state',
    labelNames: ['state'],
    samples: (s) => s.runs.map((r) => [{ state: r.state }, r.runs]),
  },
  limitWaiting: {
    name: 'cyclone_limit_waiting_steps',
    help: 'Ready steps a flow limit holds back now (label AwaitingResource), by handler kind and limit (concurrency or rate), per key under a per-key limit; counted over at most 100000 ready steps',
    labelNames: ['kind', 'limit'],
    samples: (s) => limitSamples(s, (l) => l.waiting),
  },
  limitSaturation: {
    name: 'cyclone_limit_saturation_ratio',
    help: "How full a flow limit is, by handler kind and limit: running steps over the cap's max (concurrency), or starts within the period over the limit (rate); of the fullest key under a per-key limit. 1 is full",
    labelNames: ['kind', 'limit'],
    samples: (s) => limitSamples(s, (l) => l.saturation),
  },
} as const satisfies Record<string, GaugeDefinition>;

/** What {@link DatabaseGauges} reads and where it registers. */
export interface DatabaseGaugesOptions {
  /** The prom-client module the registry belongs to. */
  readonly prom: Pick<PromClient, 'Gauge'>;
  readonly registers: Registry[];
  readonly store: MetricsReads;
  /** Kinds always reported, zero included (a worker's own). */
  readonly kinds: readonly string[];
  /**
   * Also report every kind that has available steps, and keep reporting a kind once found (at
   * zero when its queue empties), as the worker does for its own (the server).
   */
  readonly discoverKinds: boolean;
  /** Also report `cyclone_runs{state}`, a count over the whole runs table (the server). */
  readonly runs: boolean;
  /**
   * Also report `cyclone_limit_waiting_steps` and `cyclone_limit_saturation_ratio` of every
   * limited kind (the server).
   * @defaultValue false
   */
  readonly limits?: boolean;
  /**
   * Given a failed read, after which the gauges are left out of that scrape and the rest of the
   * registry is still served (the worker's counters). Without it the scrape fails with the error.
   */
  readonly onReadError?: (error: unknown) => void;
}

/**
 * Cyclone's gauges read from the database at scrape time (`store.collectMetrics`): each kind's
 * queue, the DLQ by reason and, for the server, runs by state and the flow limits. prom-client collects the gauges of
 * one scrape concurrently; they share one read (one statement) while it is in flight. Each gauge
 * is reset and refilled in one synchronous step after the read, so a scrape never mixes two reads.
 */
export class DatabaseGauges {
  private readonly kinds: Set<string>;
  private reading: Promise<MetricsSnapshot | undefined> | undefined;

  constructor(private readonly options: DatabaseGaugesOptions) {
    this.kinds = new Set(options.kinds);
    const { Gauge } = options.prom;
    const read = () => this.read();
    const all: GaugeDefinition[] = Object.values(DatabaseGaugeDefinitions);
    for (const definition of all) {
      if (definition === DatabaseGaugeDefinitions.runs && !options.runs) continue;
      const limitGauge =
        definition === DatabaseGaugeDefinitions.limitWaiting ||
        definition === DatabaseGaugeDefinitions.limitSaturation;
      if (limitGauge && !options.limits) continue;
      new Gauge({
        name: definition.name,
        help: definition.help,
        labelNames: [...definition.labelNames],
        registers: options.registers,
        async collect() {
          const snapshot = await read();
          this.reset();
          if (snapshot === undefined) return;
          for (const [labels, value] of definition.samples(snapshot)) this.set(labels, value);
        },
      });
    }
  }

  /** One read for the gauges of a scrape. */
  private read(): Promise<MetricsSnapshot | undefined> {
    const { store, discoverKinds, runs, limits, onReadError } = this.options;
    return (this.reading ??= store
      .collectMetrics({ kinds: [...this.kinds], discoverKinds, runs, limits: limits ?? false })
      .then(
        (snapshot) => {
          for (const { kind } of snapshot.queues) {
            if (this.kinds.size >= MaxRememberedKinds) break;
            this.kinds.add(kind);
          }
          return snapshot;
        },
        (error: unknown) => {
          if (onReadError === undefined) throw error;
          onReadError(error);
          return undefined;
        },
      )
      .finally(() => {
        this.reading = undefined;
      }));
  }
}
