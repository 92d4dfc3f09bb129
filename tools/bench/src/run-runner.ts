/** Runs one measurement in a runner process of its own (src/runner.ts). */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunnerResult } from './shared/types.js';

/** The bench package's folder. */
export const benchDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const runnerPath = path.join(benchDir, 'src', 'runner.ts');
/** Node flags of every runner: TypeScript through tsx, workspace packages from their sources. */
const runnerExecArgv = ['--no-deprecation', '--conditions=@cyclone/source', '--import', 'tsx'];

/** Runs one runner process and returns its JSON line; throws with its output when it fails. */
export function runRunner(args: readonly string[], timeoutMs: number): Promise<RunnerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...runnerExecArgv, runnerPath, ...args], {
      cwd: benchDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr
      .setEncoding('utf8')
      .on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-20_000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('{"bench":1'));
      let result: (RunnerResult & { error?: string }) | undefined;
      try {
        result = line ? (JSON.parse(line) as RunnerResult) : undefined;
      } catch {
        result = undefined;
      }
      if (result?.ok && code === 0) return resolve(result);
      const why =
        result?.error ??
        (signal ? `killed by ${signal} (timeout ${timeoutMs} ms?)` : `exit code ${code}`);
      reject(
        new Error(
          `runner ${args.slice(0, 3).join(' ')} failed: ${why}\n${stderr.trim().slice(-2000)}`,
        ),
      );
    });
  });
}
