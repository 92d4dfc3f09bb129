/**
 * Helpers of the pack tests: running commands, and empty databases on the test server.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropDatabase, withClient } from '@cyclone/test-db/admin';
import { databaseUrl, newTestDatabaseName, quoteIdent } from '@cyclone/test-db/names';
import { testDbContext } from '@cyclone/test-db';

/** The root of the checkout these tests belong to. */
export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** The packages a user installs, by folder under `packages/`, in dependency order. */
export const publishedPackages = [
  'core',
  'store-postgres',
  'client',
  'worker',
  'scheduler',
  'server',
  'cli',
] as const;

/** What a finished command printed. */
export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@link run}. */
export interface RunOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Kills the command after this long: a process that does not exit by itself is a failure. */
  readonly timeoutMs?: number;
}

/**
 * Runs `command` and resolves with its output; rejects with the output in the message when it
 * fails, so that a failing test shows why.
 */
export function run(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 300_000,
        killSignal: 'SIGKILL',
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error) {
          const how = error.killed ? 'was killed (timeout)' : `failed (exit ${String(error.code)})`;
          reject(
            new Error(
              `${command} ${args.join(' ')} ${how} in ${options.cwd}\n` +
                `--- stdout\n${stdout}\n--- stderr\n${stderr}`,
            ),
          );
        } else {
          resolve({ stdout: plain(stdout), stderr: plain(stderr) });
        }
      },
    );
  });
}

/**
 * The environment of a command that runs as a user's shell would run it: no Nx or npm lifecycle
 * variables inherited from the task that runs these tests (an inherited NX_SKIP_NX_CACHE or Nx's
 * task variables would change what the child does), and no `@cyclone/source` condition.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(NX_|npm_|VITEST|VITE_)/i.test(name) || name === 'NODE_OPTIONS') continue;
    if (name === 'CYCLONE_DATABASE_URL' || name === 'DATABASE_URL') continue;
    // Nx forces colours for its tasks; the outputs these tests read are plain text.
    if (name === 'FORCE_COLOR') continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** `text` without ANSI colour codes. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

/** An empty database (no migrations applied) of its own on the test server. */
export interface EmptyDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/**
 * Creates an empty database on the test server, named like the harness's own databases so that a
 * run killed before dropping it leaves nothing the next run does not clean up.
 */
export async function createEmptyDatabase(): Promise<EmptyDatabase> {
  const { serverUrl, runTag } = testDbContext();
  const name = newTestDatabaseName(runTag);
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${quoteIdent(name)}`));
  return { url: databaseUrl(serverUrl, name), name, drop: () => dropDatabase(serverUrl, name) };
}

/** Rows of one query against `url`. */
export function query<T>(url: string, sql: string): Promise<T[]> {
  return withClient(url, async (client) => (await client.query(sql)).rows as T[]);
}

/** `path.join` under the repository root. */
export function inRepo(...segments: string[]): string {
  return path.join(repoRoot, ...segments);
}
