/**
 * Child processes of the scenarios: a fixture script (`src/fixtures/<name>.ts`, bundled with
 * Cyclone's packages from their sources), its JSON-lines stdout followed, and the signals a
 * scenario sends it (SIGKILL, SIGSTOP / SIGCONT, SIGTERM).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fixtureBundle } from './fixture-bundle.js';
import { eventually } from './poll.js';

/** One JSON line a fixture wrote. */
export type FixtureLine = Record<string, unknown>;

/** A running fixture process. */
export interface FixtureProcess {
  /** The label it was started with (the fixture's name by default). */
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every JSON line written to stdout so far. */
  readonly lines: FixtureLine[];
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** Waits for a line matching `predicate` (seen already or to come), and returns it. */
  line(
    predicate: (line: FixtureLine) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<FixtureLine>;
  /** Calls `listener` for every line from now on. */
  onLine(listener: (line: FixtureLine) => void): void;
  /** Writes a line to the process's stdin. */
  send(text: string): void;
  /** Whether the process is still running. */
  readonly alive: boolean;
  /** Resolves with how the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, and waits for the end. Safe on an ended process. */
  kill(): Promise<void>;
}

/**
 * Starts fixture `name` (`src/fixtures/<name>.ts`, from its bundle; see `fixture-bundle.ts`) with
 * `env` added to this process's environment.
 */
export function spawnFixture(
  fixture: string,
  env: Record<string, string>,
  name = fixture,
): FixtureProcess {
  const child = spawn(process.execPath, [fixtureBundle(fixture)], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: FixtureLine[] = [];
  const listeners: ((line: FixtureLine) => void)[] = [];
  let partial = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    partial += chunk;
    const complete = partial.split('\n');
    partial = complete.pop()!;
    for (const text of complete) {
      if (text.trim() === '') continue;
      let line: FixtureLine;
      try {
        line = JSON.parse(text) as FixtureLine;
      } catch {
        line = { unparsed: text };
      }
      lines.push(line);
      for (const listener of listeners) listener(line);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  // A write to a process that just died must not fail the test.
  child.stdin.on('error', () => undefined);
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // 'close', not 'exit': it comes after stdout has been read to its end.
    child.once('close', (code, signal) => {
      ended = true;
      resolve({ code, signal });
    }),
  );
  return {
    name,
    child,
    pid: child.pid!,
    lines,
    stderr: () => stderr,
    exited,
    get alive() {
      return !ended && child.exitCode === null && child.signalCode === null;
    },
    line: (predicate, what, timeoutMs = 30_000) =>
      eventually(
        () => {
          const found = lines.find(predicate);
          if (!found && ended) {
            throw new Error(`${name} exited before ${what}; stderr: ${stderr.slice(-2000)}`);
          }
          return found;
        },
        what,
        timeoutMs,
        10,
      ).catch((error: unknown) => {
        // A process that is still running but never said it: what it logged says why.
        throw new Error(
          `${error instanceof Error ? error.message : String(error)}; ${name}'s stderr: ` +
            (stderr.slice(-2000) || '(empty)'),
          { cause: error },
        );
      }),
    onLine: (listener) => listeners.push(listener),
    send: (text) => {
      if (!ended) child.stdin.write(`${text}\n`);
    },
    kill: async () => {
      if (!ended) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Tracks the fixtures a test file starts and kills whatever is left after each test. */
export class FixtureSet {
  private readonly running = new Set<FixtureProcess>();

  start(fixtureName: string, env: Record<string, string>, label?: string): FixtureProcess {
    const fixture = spawnFixture(fixtureName, env, label);
    this.running.add(fixture);
    void fixture.exited.then(() => this.running.delete(fixture));
    return fixture;
  }

  /** Kills every fixture still running (SIGCONT first, in case one is stopped). */
  async killAll(): Promise<void> {
    await Promise.all(
      [...this.running].map(async (fixture) => {
        if (fixture.alive) fixture.child.kill('SIGCONT');
        await fixture.kill();
      }),
    );
  }
}
