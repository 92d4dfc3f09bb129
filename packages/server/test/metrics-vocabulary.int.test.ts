/**
 * One metrics vocabulary: the worker's `metrics()` (with its embedded scheduler) and the server's
 * `/metrics` are parsed as Prometheus text, every family follows Prometheus' naming conventions
 * (the ones `promtool check metrics` lints), a name both print means the same in both (type, help,
 * labels, values), and each README lists every family it prints with its labels.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { beforeAll, describe, expect, it } from 'vitest';
import { permanent } from '@cyclone/core';
import { eventually, useServer } from './support.js';

const env = useServer();

/** A parsed family, as the parser returns it. */
interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly metrics: readonly { value?: string; labels?: Record<string, string> }[];
}

/** Parses an exposition; the parser throws on text Prometheus would refuse. */
function parse(text: string): Map<string, Family> {
  const families = parsePrometheusTextFormat(text) as Family[];
  // The parser writes types upper-case (COUNTER), as prom2json does.
  return new Map(families.map((f) => [f.name, { ...f, type: f.type.toLowerCase() }]));
}

/** The label names a family's samples carry (histograms' `le` aside). */
function labelNames(family: Family): string[] {
  const names = new Set<string>();
  for (const sample of family.metrics) {
    for (const name of Object.keys(sample.labels ?? {})) names.add(name);
  }
  return [...names].sort();
}

/** What `promtool check metrics` would say about a family; empty when nothing. */
function lint(family: Family): string[] {
  const problems: string[] = [];
  const { name, type } = family;
  if (!/^cyclone_[a-z][a-z0-9_]*$/.test(name)) problems.push('not snake_case under cyclone_');
  if (family.help.trim() === '') problems.push('no help text');
  if (type === 'counter' && !name.endsWith('_total')) problems.push('counter without _total');
  if (type !== 'counter' && name.endsWith('_total')) problems.push('_total on a non-counter');
  if (/_(milliseconds|ms|minutes|hours|days|bytes_kb|percent)(_|$)/.test(name)) {
    problems.push('not in base units');
  }
  if (type === 'histogram' && !/_(seconds|bytes)$/.test(name)) problems.push('histogram unit');
  for (const label of labelNames(family)) {
    if (!/^[a-z][a-z0-9_]*$/.test(label)) problems.push(`label ${label} not snake_case`);
  }
  return problems.map((problem) => `${name}: ${problem}`);
}

/** The README's table row naming `name`, or undefined. */
function readmeRow(readme: string, name: string): string | undefined {
  return readme.split('\n').find((line) => line.startsWith('|') && line.includes(`\`${name}\``));
}

const readme = (pkg: string) =>
  readFileSync(new URL(`../../${pkg}/README.md`, import.meta.url), 'utf8');

describe('the metrics vocabulary', () => {
  let worker: Map<string, Family>;
  let server: Map<string, Family>;
  /** The expositions as printed. */
  const texts: Record<'worker' | 'server', string> = { worker: '', server: '' };

  beforeAll(async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const process = await env.startWorker({
      handlers: {
        'vocab.held': async () => {
          started();
          await held;
        },
        'vocab.bad': async () => {
          throw permanent(new Error('no'));
        },
        'vocab.fair': () => Promise.resolve(null),
      },
      concurrency: 1,
      prefetch: 0,
      scheduler: true,
    });
    const { runId } = await env.client.enqueue('vocab.bad', {}, { maxAttempts: 1 });
    await eventually(
      async () => (await env.client.getRun(runId)).state === 'failed',
      'the failing job to fail',
    );
    await env.client.enqueueMany('vocab.held', [1, 2, 3]);
    await env.client.enqueue('vocab.held', {}, { scheduledAt: '1h' });
    await running;
    // Set once the one step of the worker runs: it counts against the cap, the two other ready
    // steps wait on it; no start was recorded before the rate limit, so its window is empty.
    await env.client.setConcurrencyLimit({ kind: 'vocab.held', max: 1 });
    await env.client.setRateLimit({ kind: 'vocab.held', limit: 4, period: '1h' });
    // Under fair share the worker claims for its free slots only, and its one slot is held: the
    // two keys' steps stay claimable.
    await env.client.setFairShare({ kind: 'vocab.fair' });
    await env.client.enqueue('vocab.fair', {}, { concurrencyKey: 'k1' });
    await env.client.enqueue('vocab.fair', {}, { concurrencyKey: 'k2' });
    try {
      texts.worker = await process.metrics();
      texts.server = (await env.call('GET', '/metrics')).text;
      worker = parse(texts.worker);
      server = parse(texts.server);
    } finally {
      release();
    }
  });

  it('parses both expositions, and every family follows the naming conventions', () => {
    expect(worker.size).toBeGreaterThan(10);
    expect(server.size).toBeGreaterThanOrEqual(5);
    expect([...worker.values(), ...server.values()].flatMap(lint)).toEqual([]);
  });

  // Where Prometheus' own linter is installed (Debian's `prometheus` package), it has the last word.
  const promtool = spawnSync('promtool', ['--version']).status === 0;
  it.skipIf(!promtool)('passes `promtool check metrics`, both expositions', () => {
    for (const which of ['worker', 'server'] as const) {
      const check = spawnSync('promtool', ['check', 'metrics'], {
        input: texts[which],
        encoding: 'utf8',
      });
      expect({ which, status: check.status, out: `${check.stdout}${check.stderr}` }).toEqual({
        which,
        status: 0,
        out: '',
      });
    }
  });

  it('prints each name both share with the same type, help, labels and counts', () => {
    const shared = [...server.keys()].filter((name) => worker.has(name));
    expect(shared.sort()).toEqual([
      'cyclone_dlq_steps',
      'cyclone_queue_available_steps',
      'cyclone_queue_fair_share_keys',
      'cyclone_queue_oldest_ready_age_seconds',
      'cyclone_queue_ready_steps',
    ]);
    for (const name of shared) {
      const [w, s] = [worker.get(name)!, server.get(name)!];
      expect({ name, type: w.type, help: w.help }).toEqual({ name, type: s.type, help: s.help });
      expect(labelNames(w), name).toEqual(labelNames(s));
    }
    const value = (families: Map<string, Family>, name: string, label: string) =>
      Number(
        families.get(name)!.metrics.find((m) => Object.values(m.labels ?? {}).includes(label))
          ?.value,
      );
    for (const families of [worker, server]) {
      expect(value(families, 'cyclone_queue_available_steps', 'vocab.held')).toBe(3);
      expect(value(families, 'cyclone_queue_ready_steps', 'vocab.held')).toBe(2);
      expect(value(families, 'cyclone_queue_ready_steps', 'vocab.bad')).toBe(0);
      expect(value(families, 'cyclone_dlq_steps', 'permanent')).toBe(1);
      expect(
        value(families, 'cyclone_queue_oldest_ready_age_seconds', 'vocab.held'),
      ).toBeGreaterThan(0);
      // Only kinds under fair share have a sample.
      expect(value(families, 'cyclone_queue_fair_share_keys', 'vocab.fair')).toBe(2);
      expect(families.get('cyclone_queue_fair_share_keys')!.metrics).toHaveLength(1);
    }
  });

  it('prints what each flow limit holds back and how full it is', () => {
    const sample = (name: string, limit: string) =>
      Number(
        server
          .get(name)
          ?.metrics.find((m) => m.labels?.['kind'] === 'vocab.held' && m.labels['limit'] === limit)
          ?.value,
      );
    expect(sample('cyclone_limit_waiting_steps', 'concurrency')).toBe(2);
    expect(sample('cyclone_limit_saturation_ratio', 'concurrency')).toBe(1);
    expect(sample('cyclone_limit_waiting_steps', 'rate')).toBe(0);
    expect(sample('cyclone_limit_saturation_ratio', 'rate')).toBe(0);
    expect(worker.has('cyclone_limit_waiting_steps')).toBe(false);
  });

  it('lists every family in the README of the package that prints it, with its labels', () => {
    const readmes = {
      worker: readme('worker'),
      scheduler: readme('scheduler'),
      server: readme('server'),
    };
    const expectListed = (text: string, family: Family, where: string) => {
      const row = readmeRow(text, family.name);
      expect(row, `${family.name} in the ${where} README`).toBeDefined();
      for (const label of labelNames(family).filter((l) => l !== 'le')) {
        expect(row, `${family.name}'s label ${label} in the ${where} README`).toContain(
          `\`${label}\``,
        );
      }
    };
    for (const family of worker.values()) {
      expectListed(readmes.worker, family, 'worker');
      if (family.name.startsWith('cyclone_scheduler_')) {
        expectListed(readmes.scheduler, family, 'scheduler');
      }
    }
    for (const family of server.values()) expectListed(readmes.server, family, 'server');
  });
});
