/**
 * The soak's worker processes (`soak-worker.ts`, run from source with tsx) and what they report:
 * each input whose handler returned, each claim statement's time and each claimed step's queue
 * wait, stamped with the time the soak received them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const workerScript = fileURLToPath(new URL('./soak-worker.ts', import.meta.url));

/** One report of a worker process, as received. */
export interface WorkerReport {
  readonly at: number;
  readonly done: readonly number[];
  readonly claimMs: readonly number[];
  readonly waitMs: readonly number[];
}

/** The worker processes of a soak. */
export class WorkerPool {
  private readonly children: ChildProcess[] = [];
  private readonly exits: Promise<number | null>[] = [];
  private readonly ready: Promise<void>[] = [];

  /** Called with every report of a worker process. */
  onReport: (report: WorkerReport) => void = () => undefined;

  /**
   * Starts `count` worker processes, which load their code and wait for the database's URL: give
   * it with {@link start} once the database is migrated.
   */
  spawn(count: number, concurrency: number): void {
    for (let n = 1; n <= count; n++) {
      const child = spawn(
        process.execPath,
        ['--conditions=@cyclone/source', '--import', 'tsx', workerScript],
        {
          env: {
            ...process.env,
            SOAK_WORKER_ID: `soak-worker-${n}`,
            SOAK_CONCURRENCY: String(concurrency),
          },
          stdio: ['pipe', 'pipe', 'inherit'],
        },
      );
      child.stdin.on('error', () => undefined);
      this.children.push(child);
      this.exits.push(new Promise((resolve) => child.on('exit', (code) => resolve(code))));
      this.ready.push(this.follow(child, n));
    }
  }

  /** Gives each worker process the database's URL and waits until each is started. */
  async start(url: string): Promise<void> {
    this.children.forEach((child, k) => {
      const named = new URL(url);
      named.searchParams.set('application_name', `soak-worker-${k + 1}`);
      child.stdin!.write(`${named.toString()}\n`);
    });
    await Promise.all(this.ready);
  }

  private follow(child: ChildProcess, n: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let partial = '';
      child.once('exit', (code) => reject(new Error(`worker ${n} exited (${code}) before ready`)));
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        partial += chunk;
        const lines = partial.split('\n');
        partial = lines.pop()!;
        for (const text of lines) {
          if (text.trim() === '') continue;
          const line = JSON.parse(text) as { ready?: string; loaded?: boolean } & Omit<
            WorkerReport,
            'at'
          >;
          if (line.ready !== undefined) resolve();
          else if (line.loaded === undefined) this.onReport({ ...line, at: Date.now() });
        }
      });
    });
  }

  /** Whether every worker process still runs. */
  get alive(): boolean {
    return this.children.every((c) => c.exitCode === null && c.signalCode === null);
  }

  /** SIGTERM to every worker (each stops, reports what is left and exits), awaited. */
  async stop(): Promise<void> {
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGTERM');
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 30_000).unref());
    await Promise.race([Promise.all(this.exits), timeout]);
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}
