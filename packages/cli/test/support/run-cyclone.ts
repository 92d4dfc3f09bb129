import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('./cyclone-from-source.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/** A `cyclone` process started from the sources, as a user starts it from a shell. */
export interface CycloneProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once `predicate` holds for stdout; rejects after `timeoutMs`. */
  waitForOutput(predicate: (stdout: string) => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (or 128 + signal number); rejects after `timeoutMs`. */
  exited(timeoutMs?: number): Promise<number>;
}

/** The command line that runs `cyclone` from the sources. */
export function cycloneCommand(args: readonly string[]): string[] {
  return [process.execPath, '--conditions=@cyclone/source', '--import', 'tsx', entry, ...args];
}

/** Starts `cyclone ...args` in a subprocess, with no database variables unless `env` gives some. */
export function startCyclone(args: readonly string[], env: NodeJS.ProcessEnv = {}): CycloneProcess {
  const [command, ...rest] = cycloneCommand(args);
  const baseEnv = { ...process.env };
  delete baseEnv.CYCLONE_DATABASE_URL;
  delete baseEnv.DATABASE_URL;
  const child = spawn(command!, rest, {
    cwd: packageDir,
    env: { ...baseEnv, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exit = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) =>
      resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 2)),
    ),
  );
  const withDeadline = <T>(promise: Promise<T>, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${what} within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`)),
        timeoutMs,
      );
      promise.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForOutput: (predicate, timeoutMs = 30_000) =>
      withDeadline(
        new Promise<void>((resolve, reject) => {
          const check = () => {
            if (predicate(out)) {
              child.stdout.off('data', check);
              resolve();
            }
          };
          child.stdout.on('data', check);
          void exit.then(() => (predicate(out) ? resolve() : reject(new Error('exited'))));
          check();
        }),
        timeoutMs,
        'expected output did not appear',
      ),
    exited: (timeoutMs = 30_000) => withDeadline(exit, timeoutMs, 'the process did not exit'),
  };
}

/** Runs `cyclone ...args` to completion and returns its exit code and output. */
export async function runCyclone(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const process = startCyclone(args, env);
  const code = await process.exited(60_000);
  return { code, stdout: process.stdout(), stderr: process.stderr() };
}
