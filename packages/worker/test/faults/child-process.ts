/** Runs test/fixtures scripts in a child Node process and follows their JSON-lines output. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from '../engine.js';

/** A running fixture process. */
export interface FixtureProcess {
  readonly child: ChildProcess;
  /** Every JSON line written to stdout so far. */
  readonly lines: Record<string, unknown>[];
  /** Waits for a line matching `predicate`, and returns it. */
  line(
    predicate: (line: Record<string, unknown>) => boolean,
    what: string,
  ): Promise<Record<string, unknown>>;
  /** Resolves with how the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `test/fixtures/<name>.ts` under tsx, resolving Cyclone's packages to their sources. */
export function spawnFixture(name: string, env: Record<string, string>): FixtureProcess {
  const script = fileURLToPath(new URL(`../fixtures/${name}.ts`, import.meta.url));
  const child = spawn(
    process.execPath,
    ['--conditions=@cyclone/source', '--import', 'tsx', script],
    { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const lines: Record<string, unknown>[] = [];
  let partial = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    partial += chunk;
    const complete = partial.split('\n');
    partial = complete.pop()!;
    for (const text of complete) {
      if (text.trim() === '') continue;
      try {
        lines.push(JSON.parse(text) as Record<string, unknown>);
      } catch {
        lines.push({ unparsed: text });
      }
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // 'close', not 'exit': it comes after stdout has been read to its end.
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  let ended = false;
  void exited.then(() => (ended = true));
  return {
    child,
    lines,
    exited,
    line: (predicate, what) =>
      eventually(
        () => {
          const found = lines.find(predicate);
          if (!found && ended) throw new Error(`the fixture exited; stderr: ${stderr}`);
          return found;
        },
        what,
        30_000,
      ),
  };
}
