/**
 * Scenario 19: the soak (`npm run soak`, src/soak) for three minutes, on a PostgreSQL cluster of
 * its own with autovacuum at its defaults: worker processes at half the calibrated maximum rate,
 * retention on (18 s), a REPEATABLE READ snapshot held open for a third of the run, then recovery,
 * a burst at twice the rate and recovery. The soak judges its pass criteria itself (no step lost or
 * run twice, throughput while the snapshot is held, time back to steady, table sizes, claim p99;
 * docs/reliability.md, "The soak") and exits non-zero when one fails.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { reportFigures } from '../support/figures.js';
import type { Verdict } from '../soak/criteria.js';
import type { SoakResult } from '../soak/soak.js';

const main = fileURLToPath(new URL('../soak/main.ts', import.meta.url));
const minutes = 3;

it(
  `holds a ${minutes}-minute soak through a held snapshot and a burst`,
  async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'cyclone-soak-'));
    try {
      const child = spawn(
        process.execPath,
        [
          '--conditions=@cyclone/source',
          '--import',
          'tsx',
          main,
          '--minutes',
          String(minutes),
          '--out',
          out,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        process.stdout.write(chunk);
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      const [file] = readdirSync(out);
      expect(file, `the soak wrote no figures:\n${output}`).toBeDefined();
      const report = JSON.parse(readFileSync(path.join(out, file!), 'utf8')) as {
        result: SoakResult;
        verdicts: Verdict[];
      };
      const { result } = report;
      const phase = (name: string) => result.phases.find((p) => p.phase === name)!;
      reportFigures('soak', {
        minutes,
        rate: result.rate,
        calibrated_max: result.calibratedMaxPerS ?? 0,
        submitted: result.submitted,
        lost: result.lost,
        twice: result.twice,
        steady_per_s: phase('steady').completedPerS,
        snapshot_per_s: phase('snapshot').completedPerS,
        recovery_after_snapshot_s: result.recoveryAfterSnapshotS ?? -1,
        recovery_after_burst_s: result.recoveryAfterBurstS ?? -1,
        claim_p99_max_ms: Math.max(...result.phases.map((p) => p.claimP99Ms)),
        after_recovery_mb: Math.round(phase('recovery').totalBytes / 1e5) / 10,
        end_mb: Math.round(result.phases[result.phases.length - 1]!.totalBytes / 1e5) / 10,
      });
      expect(report.verdicts.filter((v) => !v.passed)).toEqual([]);
      expect(code).toBe(0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
  (minutes + 5) * 60_000,
);
