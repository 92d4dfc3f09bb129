/** Runs one measurement in a runner process of its own (src/runner.ts). */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { RunnerResult } from './shared/types.js';

/** The bench package's folder. */
export const benchDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const runnerPath = path.join(benchDir, 'src', 'runner.ts');

/**
 * Third-party packages stay imports of node_modules; the workspace's packages (`@cyclone/*`) and
 * the bench's own files are bundled from their sources.
 */
const thirdPartyExternal: Plugin = {
  name: 'third-party-external',
  setup(plugin) {
    plugin.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@cyclone/') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * Each bundled source keeps its own `import.meta.url`, so what finds files next to itself (the
 * store's migrations folder, say) finds them as it does when run from source.
 */
const ownModuleUrl: Plugin = {
  name: 'own-module-url',
  setup(plugin) {
    plugin.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(args.path).href),
      ),
      loader: 'ts',
    }));
  },
};

/**
 * Removes the bundles of bench processes that are gone: a process killed by a signal (a test
 * runner's worker, say) never runs its exit hook.
 */
function removeOrphanBundles(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = Number(/^runner-(\d+)\.mjs$/.exec(name)?.[1]);
    if (pid && !processAlive(pid)) rmSync(path.join(dir, name), { force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let bundle: Promise<string> | undefined;

/**
 * The runner as one JavaScript file, built once per bench process (decision 288). A runner is
 * the process whose CPU and memory the bench reports, so it runs as a deployment would: plain
 * JavaScript, no TypeScript loader (a loader's compiler thread and caches add about 55 MB of RSS
 * and its start-up, the same for every system). The workspace's packages come from their
 * sources, so a run measures the code as it is, built or not. The file sits in the bench's folder
 * so that its imports resolve from the repository's node_modules, and goes when this process
 * exits.
 */
function runnerBundle(): Promise<string> {
  bundle ??= (async () => {
    const result = await build({
      entryPoints: [runnerPath],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['@cyclone/source'],
      plugins: [thirdPartyExternal, ownModuleUrl],
      write: false,
      logLevel: 'silent',
    });
    const dir = path.join(benchDir, '.runner');
    mkdirSync(dir, { recursive: true });
    removeOrphanBundles(dir);
    const file = path.join(dir, `runner-${process.pid}.mjs`);
    writeFileSync(file, result.outputFiles[0]!.contents);
    process.once('exit', () => rmSync(file, { force: true }));
    return file;
  })();
  return bundle;
}

/** Runs one runner process and returns its JSON line; throws with its output when it fails. */
export function runRunner(args: readonly string[], timeoutMs: number): Promise<RunnerResult> {
  return runnerBundle().then((runner) => runOne(runner, args, timeoutMs));
}

function runOne(runner: string, args: readonly string[], timeoutMs: number): Promise<RunnerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-deprecation', runner, ...args], {
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
