/**
 * One soak: worker processes drain `soak.work` steps submitted at a fixed rate through the phases
 * (steady, a REPEATABLE READ snapshot held open, recovery, a burst at twice the rate, recovery),
 * with the scheduler's retention deleting finished runs; a line is printed every report interval
 * and the figures of every phase are returned.
 */
import pg from 'pg';
import { pino } from 'pino';
import { Client } from '@cyclone/client';
import { Scheduler } from '@cyclone/scheduler';
import { urlNamed } from './database.js';
import { clock, mb, ms, quantile } from './figures.js';
import { Ledger } from './ledger.js';
import { phaseAt, soakPhases, type Phase, type PhaseName } from './phases.js';
import { readTableStats, totals, type TableStats } from './table-stats.js';
import { type WorkerPool, type WorkerReport } from './worker-pool.js';

const kind = 'soak.work';
/** Rows per `enqueueMany` call at most. */
const enqueueChunk = 2_000;
const tickMs = 100;

/** How a soak is run (resolved from the command line). */
export interface SoakSettings {
  readonly url: string;
  readonly minutes: number;
  /** Steps/s; undefined: half the calibrated maximum. */
  readonly rate: number | undefined;
  readonly retentionSeconds: number;
}

/** The figures of one phase. */
export interface PhaseFigures {
  readonly phase: PhaseName;
  readonly seconds: number;
  readonly offeredPerS: number;
  readonly completedPerS: number;
  readonly waitP50Ms: number;
  readonly waitP99Ms: number;
  readonly claimP50Ms: number;
  readonly claimP99Ms: number;
  /** Most steps submitted and not yet returned, sampled every tick. */
  readonly maxOutstanding: number;
  /** Cyclone's tables at the end of the phase. */
  readonly totalBytes: number;
  readonly heapBytes: number;
  readonly indexBytes: number;
  readonly dead: number;
  readonly autovacuums: number;
}

/** What a soak measured. */
export interface SoakResult {
  readonly rate: number;
  readonly calibratedMaxPerS: number | undefined;
  readonly phases: PhaseFigures[];
  /** Seconds from the end of the snapshot (and of the burst) until the backlog was back to steady. */
  readonly recoveryAfterSnapshotS: number | undefined;
  readonly recoveryAfterBurstS: number | undefined;
  readonly steadyOutstandingBound: number;
  readonly submitted: number;
  readonly lost: number;
  readonly twice: number;
  /** Runs not `completed` once the soak drained (failed, stuck). */
  readonly unfinishedRuns: number;
  /** Cyclone's tables once the soak drained, per table. */
  readonly tables: TableStats[];
  /** Bytes per run kept by retention at the end (the tables' size over the runs in them). */
  readonly bytesPerKeptRun: number;
  /** Seconds spent starting the processes, calibrating, in the phases and draining. */
  readonly timings: { start: number; calibration: number; phases: number; drain: number };
}

interface PhaseSamples {
  completed: number;
  offered: number;
  claimMs: number[];
  waitMs: number[];
  maxOutstanding: number;
  startedAt: number;
  endedAt: number;
  stats?: TableStats[];
}

function delay(msValue: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, msValue));
}

/** Runs a soak; resolves with its figures (the pass criteria are judged by the caller). */
export async function runSoak(settings: SoakSettings, workers: WorkerPool): Promise<SoakResult> {
  const ledger = new Ledger();
  const phases = soakPhases(settings.minutes);
  const samples = new Map<PhaseName, PhaseSamples>();
  let current: PhaseSamples | undefined;
  // The report window: what arrived since the last line.
  let window = { completed: 0, claimMs: [] as number[], waitMs: [] as number[] };
  workers.onReport = (report: WorkerReport) => {
    for (const i of report.done) ledger.record(i);
    window.completed += report.done.length;
    window.claimMs.push(...report.claimMs);
    window.waitMs.push(...report.waitMs);
    if (current) {
      current.completed += report.done.length;
      current.claimMs.push(...report.claimMs);
      current.waitMs.push(...report.waitMs);
    }
  };

  const monitor = new pg.Pool({ connectionString: urlNamed(settings.url, 'soak-monitor'), max: 2 });
  monitor.on('error', () => undefined);
  const client = new Client({ connectionString: urlNamed(settings.url, 'soak-producer') });
  const scheduler = new Scheduler({
    connectionString: urlNamed(settings.url, 'soak-scheduler'),
    retention: `${settings.retentionSeconds}s`,
    logger: pino({ level: 'warn' }, pino.destination(2)),
  });
  const holder = new pg.Client({ connectionString: urlNamed(settings.url, 'soak-snapshot') });
  await holder.connect();
  let holding = false;

  const submit = async (n: number) => {
    for (let left = n; left > 0; left -= enqueueChunk) {
      const inputs = ledger.take(Math.min(enqueueChunk, left)).map((i) => ({ i }));
      await client.enqueueMany(kind, inputs);
    }
  };
  const waitForDrain = async (what: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (ledger.outstanding > 0) {
      if (Date.now() > deadline) {
        console.log(
          `[soak] ${what}: ${ledger.outstanding} steps still outstanding after ${clock(timeoutMs)}`,
        );
        return;
      }
      if (!workers.alive) throw new Error('a worker process exited');
      await delay(200);
    }
  };

  const began = Date.now();
  const mark = () => {
    const now = Date.now();
    const seconds = Math.round((now - lastMark) / 100) / 10;
    lastMark = now;
    return seconds;
  };
  let lastMark = began;
  try {
    await scheduler.start();
    await workers.start(settings.url);
    const startS = mark();

    // Calibration: a backlog kept above what the workers take in one go, for a while; the rate is
    // what they drained once warm.
    let calibratedMaxPerS: number | undefined;
    let rate = settings.rate;
    if (rate === undefined) {
      const warmMs = settings.minutes >= 10 ? 3_000 : 2_000;
      const countMs = settings.minutes >= 10 ? 20_000 : 8_000;
      const startedAt = Date.now();
      let countedFrom: number | undefined;
      while (Date.now() - startedAt < warmMs + countMs) {
        if (ledger.outstanding < 3_000) await submit(enqueueChunk);
        if (countedFrom === undefined && Date.now() - startedAt >= warmMs) {
          countedFrom = ledger.returned;
        }
        await delay(tickMs);
      }
      calibratedMaxPerS = (ledger.returned - (countedFrom ?? 0)) / (countMs / 1000);
      rate = Math.max(1, Math.round(calibratedMaxPerS / 2));
      console.log(
        `[soak] calibration: ${Math.round(calibratedMaxPerS)} steps/s at most; holding ${rate} steps/s`,
      );
      await waitForDrain('calibration drain', 120_000);
    }
    const calibrationS = mark();
    const reportMs = Math.min(60_000, Math.max(10_000, settings.minutes * 2_000));

    // The phases; what the calibration's backlog left in the report window is not theirs.
    window = { completed: 0, claimMs: [], waitMs: [] };
    const startedAt = Date.now();
    let last = startedAt;
    let owed = 0;
    let nextReport = startedAt + reportMs;
    let snapshotEndedAt: number | undefined;
    let burstEndedAt: number | undefined;
    const outstandingSeries: { at: number; n: number; phase: PhaseName }[] = [];
    let lastStats = await readTableStats(monitor);
    for (;;) {
      const now = Date.now();
      const phase: Phase | undefined = phaseAt(phases, now - startedAt);
      if (current && (phase === undefined || current !== samples.get(phase.name))) {
        current.endedAt = now;
        current.stats = await readTableStats(monitor);
        const ended = [...samples.entries()].find(([, s]) => s === current)?.[0];
        if (ended === 'burst') burstEndedAt = now;
      }
      if (phase === undefined) break;
      if (!samples.has(phase.name)) {
        current = {
          completed: 0,
          offered: 0,
          claimMs: [],
          waitMs: [],
          maxOutstanding: 0,
          startedAt: now,
          endedAt: now,
        };
        samples.set(phase.name, current);
      }
      if (phase.holdsSnapshot && !holding) {
        await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        // The snapshot is taken by the first statement and held until COMMIT.
        await holder.query('SELECT count(*) FROM cyclone_runs');
        holding = true;
      } else if (!phase.holdsSnapshot && holding) {
        await holder.query('COMMIT');
        holding = false;
        snapshotEndedAt = Date.now();
      }
      if (!workers.alive) throw new Error('a worker process exited');

      owed += (rate * phase.rateFactor * (now - last)) / 1000;
      last = now;
      const n = Math.floor(owed);
      if (n > 0) {
        owed -= n;
        current!.offered += n;
        await submit(n);
      }
      const outstanding = ledger.outstanding;
      current!.maxOutstanding = Math.max(current!.maxOutstanding, outstanding);
      outstandingSeries.push({ at: Date.now(), n: outstanding, phase: phase.name });

      if (Date.now() >= nextReport) {
        nextReport += reportMs;
        const stats = await readTableStats(monitor);
        const [available] = (
          await monitor.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM cyclone_steps WHERE state = 'available'`,
          )
        ).rows;
        printLine(now - startedAt, phase, rate, reportMs, window, available!.n, stats, lastStats);
        lastStats = stats;
        window = { completed: 0, claimMs: [], waitMs: [] };
      }
      await delay(tickMs);
    }
    if (holding) await holder.query('COMMIT');

    const phasesS = mark();
    console.log(`[soak] phases over; draining ${ledger.outstanding} outstanding steps`);
    await waitForDrain('final drain', 180_000);
    const drainS = mark();
    await workers.stop();

    const [unfinished] = (
      await monitor.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM cyclone_runs WHERE state <> 'completed'`,
      )
    ).rows;
    const [kept] = (
      await monitor.query<{ n: number }>(`SELECT count(*)::int AS n FROM cyclone_runs`)
    ).rows;
    const tables = await readTableStats(monitor);

    // Back to steady: the first moment after the fault from which the backlog stays within the
    // steady phase's for ten seconds.
    const steadyMax = samples.get('steady')?.maxOutstanding ?? 0;
    const steadyOutstandingBound = Math.max(2 * steadyMax, Math.ceil(rate * 2));
    const recoveredAfter = (from: number | undefined): number | undefined => {
      if (from === undefined) return undefined;
      const after = outstandingSeries.filter((s) => s.at >= from);
      for (let k = 0; k < after.length; k++) {
        let stays = true;
        for (let j = k; j < after.length && after[j]!.at <= after[k]!.at + 10_000; j++) {
          if (after[j]!.n > steadyOutstandingBound) {
            stays = false;
            break;
          }
        }
        if (stays) return (after[k]!.at - from) / 1000;
      }
      return undefined;
    };

    const figures: PhaseFigures[] = phases.map((p) => {
      const s = samples.get(p.name)!;
      const seconds = (s.endedAt - s.startedAt) / 1000;
      const t = totals(s.stats ?? []);
      return {
        phase: p.name,
        seconds: Math.round(seconds),
        offeredPerS: Math.round(s.offered / seconds),
        completedPerS: Math.round(s.completed / seconds),
        waitP50Ms: quantile(s.waitMs, 0.5),
        waitP99Ms: quantile(s.waitMs, 0.99),
        claimP50Ms: quantile(s.claimMs, 0.5),
        claimP99Ms: quantile(s.claimMs, 0.99),
        maxOutstanding: s.maxOutstanding,
        totalBytes: t.totalBytes,
        heapBytes: t.heapBytes,
        indexBytes: t.indexBytes,
        dead: t.dead,
        autovacuums: t.autovacuums,
      };
    });
    const audit = ledger.audit();
    return {
      rate,
      calibratedMaxPerS:
        calibratedMaxPerS === undefined ? undefined : Math.round(calibratedMaxPerS),
      phases: figures,
      recoveryAfterSnapshotS: recoveredAfter(snapshotEndedAt),
      recoveryAfterBurstS: recoveredAfter(burstEndedAt),
      steadyOutstandingBound,
      submitted: ledger.submitted,
      lost: audit.lost,
      twice: audit.twice,
      unfinishedRuns: unfinished!.n,
      tables,
      bytesPerKeptRun: Math.round(totals(tables).totalBytes / Math.max(1, kept!.n)),
      timings: { start: startS, calibration: calibrationS, phases: phasesS, drain: drainS },
    };
  } finally {
    await holder.end().catch(() => undefined);
    await workers.stop();
    await scheduler.stop().catch(() => undefined);
    await client.close().catch(() => undefined);
    await monitor.end().catch(() => undefined);
  }
}

/** The line printed every report interval. */
function printLine(
  atMs: number,
  phase: Phase,
  rate: number,
  reportMs: number,
  window: { completed: number; claimMs: number[]; waitMs: number[] },
  available: number,
  stats: readonly TableStats[],
  previous: readonly TableStats[],
): void {
  const t = totals(stats);
  const autovacuumsSince = t.autovacuums - totals(previous).autovacuums;
  const perTable = stats
    .filter((s) => s.totalBytes > 16_384)
    .map(
      (s) =>
        `${s.table} ${(s.heapBytes / 1_048_576).toFixed(1)}+${(s.indexBytes / 1_048_576).toFixed(1)}MB dead ${s.dead} av ${s.autovacuums}`,
    )
    .join('; ');
  console.log(
    `[soak] ${clock(atMs)} ${phase.name.padEnd(11)} offered ${Math.round(rate * phase.rateFactor)}/s done ${Math.round(
      (window.completed * 1000) / reportMs,
    )}/s depth ${available} wait p50 ${ms(quantile(window.waitMs, 0.5))} p99 ${ms(
      quantile(window.waitMs, 0.99),
    )} claim p50 ${ms(quantile(window.claimMs, 0.5))} p99 ${ms(quantile(window.claimMs, 0.99))} | tables ${mb(
      t.totalBytes,
    )} (heap ${mb(t.heapBytes)} idx ${mb(t.indexBytes)}) dead ${t.dead} autovacuum +${autovacuumsSince} | ${perTable}`,
  );
}
