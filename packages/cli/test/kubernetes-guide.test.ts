/**
 * docs/guides/kubernetes.md's manifests against the CLI and the server: each container's `args`
 * must name a `cyclone` command and only flags that command takes, the probes must ask for a path
 * the server serves on the port it is told to listen on, and a worker's termination grace must be
 * longer than its `--grace`. The manifests cannot run here; what they rely on can be checked.
 * Their `args` are written as flow sequences, read here without a YAML parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toMilliseconds, type Duration } from '@cyclone/core';
import { parsedCommands } from './support/command-tree.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const guide = readFileSync(path.join(repoRoot, 'docs/guides/kubernetes.md'), 'utf8');
const manifests = [...guide.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
  .map((match) => match[1]!)
  .join('\n')
  .split(/^---$/m);

/** The flow sequence after `key:` in a manifest, as strings. */
function sequence(manifest: string, key: string): string[] | undefined {
  const at = manifest.search(new RegExp(`\\b${key}:\\s*\\[`));
  if (at < 0) return undefined;
  const start = manifest.indexOf('[', at);
  const end = manifest.indexOf(']', start);
  const json = manifest
    .slice(start, end + 1)
    .replaceAll("'", '"')
    .replace(/,\s*\]$/, ']');
  return JSON.parse(json) as string[];
}

describe('docs/guides/kubernetes.md', () => {
  const commands = new Map(parsedCommands().map(({ words, flags }) => [words, flags]));
  const containers = manifests
    .map((manifest) => ({ manifest, args: sequence(manifest, 'args') }))
    .filter((c): c is { manifest: string; args: string[] } => c.args !== undefined);

  it('runs migrate, worker, scheduler and serve', () => {
    expect(containers.map(({ args }) => args[0])).toEqual([
      'migrate',
      'worker',
      'scheduler',
      'serve',
    ]);
    for (const { manifest } of containers) {
      expect(sequence(manifest, 'command')).toEqual(['npx', 'cyclone']);
    }
  });

  it('passes each command only flags it takes', () => {
    const unknown = containers.flatMap(({ args }) => {
      const flags = commands.get(args[0]!) ?? [];
      return args
        .filter((arg) => arg.startsWith('--') && !flags.includes(arg))
        .map((arg) => `${args[0]} ${arg}`);
    });
    expect(unknown).toEqual([]);
  });

  it('probes a path the server serves, on the port it listens on', () => {
    const server = containers.find(({ args }) => args[0] === 'serve')!;
    const port = server.args[server.args.indexOf('--port') + 1];
    expect(server.manifest).toContain(`containerPort: ${port}`);
    const probes = [...server.manifest.matchAll(/httpGet: \{ path: (\S+), port: (\d+) \}/g)];
    expect(probes.length).toBe(2);
    const routes = readdirSync(path.join(repoRoot, 'packages/server/src/routes'))
      .map((file) => readFileSync(path.join(repoRoot, 'packages/server/src/routes', file), 'utf8'))
      .join('\n');
    for (const [, probePath, probePort] of probes) {
      expect(probePort).toBe(port);
      expect(routes).toContain(`path: '${probePath}'`);
    }
  });

  it("gives a worker's pod longer to stop than the worker's grace", () => {
    const worker = containers.find(({ args }) => args[0] === 'worker')!;
    const grace = worker.args[worker.args.indexOf('--grace') + 1] as Duration;
    const termination = Number(/terminationGracePeriodSeconds: (\d+)/.exec(worker.manifest)?.[1]);
    expect(termination * 1000).toBeGreaterThan(toMilliseconds(grace) + 1000);
  });
});
