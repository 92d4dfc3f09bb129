/** Runs a custom pgbench script: no vacuum, prepared statements, one thread per client. */
import { execFile, execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The pgbench on the PATH, or undefined when there is none (the bound is then skipped). */
export function findPgbench(): string | undefined {
  const candidate = process.env.PGBENCH ?? 'pgbench';
  try {
    execFileSync(candidate, ['--version'], { stdio: 'ignore' });
    return candidate;
  } catch {
    return undefined;
  }
}

/** A pgbench custom script and the variables it reads (`-D name=value`). */
export interface PgbenchScript {
  readonly script: string;
  readonly variables: Readonly<Record<string, string>>;
}

export interface PgbenchRun {
  readonly clients: number;
  /** Script runs per client. */
  readonly transactions: number;
}

/** Runs the script against `url` and resolves with the wall time in seconds. */
export async function runPgbench(
  url: string,
  { script, variables }: PgbenchScript,
  run: PgbenchRun,
): Promise<number> {
  const bin = findPgbench();
  if (!bin) throw new Error('pgbench was not found on the PATH (set PGBENCH to its path)');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cyclone-bound-'));
  const file = path.join(dir, 'script.sql');
  await fs.writeFile(file, script);
  const args = [
    '--no-vacuum',
    '--protocol=prepared',
    `--client=${run.clients}`,
    `--jobs=${run.clients}`,
    `--transactions=${run.transactions}`,
    // A deadlock is retried, as the systems' own workers do (pgbench 15 and later).
    '--max-tries=10',
    `--file=${file}`,
    ...Object.entries(variables).map(([k, v]) => `--define=${k}=${v}`),
    url,
  ];
  const t0 = performance.now();
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(bin, args, { maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`pgbench failed: ${stderr.trim() || error.message}`));
        else if (/\bfailed transactions: [1-9]/.test(stdout))
          reject(new Error(`pgbench: some transactions failed\n${stdout}`));
        else resolve();
      });
    });
    return (performance.now() - t0) / 1000;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
