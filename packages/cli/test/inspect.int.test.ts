import { describe, expect, it } from 'vitest';
import { permanent, workflow } from '@cyclone/core';
import { Worker } from '@cyclone/worker';
import { pino } from 'pino';
import { useCli } from './support/use-cli.js';

const cli = useCli();
const { cyclone } = cli;

/** A worker on the test database serving `handlers`, stopped by the returned function. */
async function startWorker(handlers: Record<string, () => Promise<unknown>>) {
  const worker = new Worker({
    connectionString: cli.db.url,
    handlers,
    logger: pino({ level: 'silent' }),
    pollInterval: '100ms',
  });
  await worker.start();
  return () => worker.stop({ timeout: '1s' });
}

const order = workflow('cli-order')
  .task('charge', 'cli.charge')
  .task('pack', 'cli.pack', { dependsOn: ['charge'] })
  .waitSignal('approval', { signal: 'approved', dependsOn: ['charge'] })
  .task('ship', 'cli.ship', { dependsOn: ['pack', 'approval'] })
  .build();

describe('cyclone explain', () => {
  it('says why a node waits, as text and as the contract JSON; exit 3 for an unknown node', async () => {
    const { runId } = await cli.client.submit(order, null);
    const text = await cyclone('explain', runId, 'ship');
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^node\s+ship$/m);
    expect(text.out).toMatch(/^state\s+pending$/m);
    expect(text.out).toMatch(/^reason\s+dependencies$/m);
    expect(text.out).toMatch(/^waiting on\s+pack, approval$/m);
    expect(text.out).toContain('It waits for upstream nodes pack (pending), approval (pending)');

    const json = await cyclone('explain', runId, 'charge', '--json');
    const explained = JSON.parse(json.out) as Record<string, unknown>;
    expect(explained).toMatchObject({ node: 'charge', state: 'available', reason: 'no_worker' });
    expect(Object.keys(explained)).toEqual(['node', 'state', 'reason', 'message']);

    const unknown = await cyclone('explain', runId, 'nope');
    expect(unknown.code).toBe(3);
    expect(unknown.err).toContain('node nope of run');
    expect((await cyclone('explain', runId)).code).toBe(2);
  });

  it('names the worker holding a running step', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const stop = await startWorker({ 'cli.hold': () => held });
    try {
      const { runId } = await cli.client.enqueue('cli.hold', null);
      let explained: Record<string, unknown> = {};
      for (let i = 0; i < 100 && explained.reason !== 'running'; i++) {
        explained = JSON.parse((await cyclone('explain', runId, 'cli.hold', '--json')).out);
        if (explained.reason !== 'running') await new Promise((r) => setTimeout(r, 50));
      }
      expect(explained).toMatchObject({ state: 'running', reason: 'running' });
      expect(explained.worker).toEqual(expect.any(String));
      expect(Date.parse(explained.until as string)).toBeGreaterThan(Date.now());
      release();
      await cli.client.wait(runId, { timeout: '10s' });
    } finally {
      release();
      await stop();
    }
  });
});

describe('cyclone runs list', () => {
  it('filters by state, workflow, time and parent, and pages with the printed cursor', async () => {
    const before = new Date().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await cli.client.enqueue('cli.page', { i })).runId);
    const first = await cyclone('runs', 'list', '--workflow', 'cli.page', '--limit', '2');
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^ID\s+WORKFLOW\s+STATE/m);
    expect(first.out).toContain(ids[2]);
    const cursor = /next page: --cursor (\S+)/.exec(first.out)?.[1];
    expect(cursor).toBeDefined();
    const second = await cyclone(
      'runs',
      'list',
      '--workflow',
      'cli.page',
      '--limit',
      '2',
      '--cursor',
      cursor!,
      '--json',
    );
    const page = JSON.parse(second.out) as { runs: { id: string }[]; nextCursor?: string };
    expect(page.runs.map((r) => r.id)).toEqual([ids[0]]);
    expect(page.nextCursor).toBeUndefined();

    const since = await cyclone('runs', 'list', '--since', before, '--state', 'running', '--json');
    expect((JSON.parse(since.out) as { runs: unknown[] }).runs.length).toBeGreaterThanOrEqual(3);
    const none = await cyclone('runs', 'list', '--until', '1d', '--workflow', 'cli.page', '--json');
    expect(JSON.parse(none.out)).toEqual({ runs: [] });
    const children = await cyclone('runs', 'list', '--parent', ids[0]!, '--json');
    expect(JSON.parse(children.out)).toEqual({ runs: [] });

    expect((await cyclone('runs', 'list', '--since', 'yesterday')).code).toBe(2);
    expect((await cyclone('runs', 'list', '--parent', 'nope')).code).toBe(2);
    expect((await cyclone('runs', 'list', '--limit', '0')).code).toBe(2);
    expect((await cyclone('runs', 'list', '--cursor', 'bogus')).code).toBe(1);
  });
});

describe('cyclone runs show', () => {
  it('draws the graph in topological order with states, attempts and dependencies', async () => {
    const { runId } = await cli.client.submit(order, null);
    const shown = await cyclone('runs', 'show', runId);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^state\s+running$/m);
    expect(shown.out).toContain('graph (0/4 steps completed)');
    const graph = shown.out.slice(shown.out.indexOf('NODE'));
    const lines = graph.split('\n');
    expect(lines[0]).toMatch(/^NODE\s+STATE\s+ATTEMPTS\s+ERROR KIND\s+TIME\s+AFTER$/);
    expect(lines[1]).toMatch(/^charge\s+available\s+0\/3\s+-\s+-$/);
    expect(lines[2]).toMatch(/^└ pack\s+pending\s+0\/3\s+-\s+-\s+<- charge$/);
    expect(lines[3]).toMatch(/^└ approval\s+pending\s+-\s+-\s+-\s+<- charge$/);
    expect(lines[4]).toMatch(/^ {2}└ ship\s+pending\s+0\/3\s+-\s+-\s+<- pack, approval$/);
    for (const line of shown.out.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    const json = JSON.parse((await cyclone('runs', 'show', runId, '--json')).out);
    expect(json).toMatchObject({ id: runId, state: 'running' });
    expect(json.steps).toHaveLength(4);
  });
});

describe('cyclone runs watch and events', () => {
  it('watches a run to completion (exit 0), then lists its events with Retrying and AwaitingRetry', async () => {
    let calls = 0;
    const stop = await startWorker({
      'cli.flaky': () => {
        calls += 1;
        if (calls === 1) throw new Error('once');
        return Promise.resolve('ok');
      },
    });
    try {
      const job = workflow('cli-flaky')
        .task('flaky', 'cli.flaky', { maxAttempts: 3, backoff: { initial: '10ms', max: '10ms' } })
        .build();
      const { runId } = await cli.client.submit(job, null);
      const watched = await cyclone('runs', 'watch', runId, '--interval', '100ms');
      expect(watched.code).toBe(0);
      expect(watched.out).toContain('[##############################] 1/1 steps completed');
      expect(watched.out).toMatch(/run \S+ {2}cli-flaky {2}completed/);

      const lines = (await cyclone('runs', 'watch', runId, '--json')).out.split('\n');
      const changes = lines.map((l) => JSON.parse(l) as { type: string; runState: string });
      expect(changes[0]!.type).toBe('run_submitted');
      expect(changes.at(-1)).toMatchObject({ type: 'run_completed', runState: 'completed' });

      const events = await cyclone('events', runId);
      expect(events.out).toMatch(
        /step_retry_scheduled\s+running\s+available\s+AwaitingRetry\s+retryable/,
      );
      expect(events.out).toMatch(/step_started\s+available\s+running\s+Retrying/);
      const json = JSON.parse((await cyclone('events', runId, '--json')).out) as {
        label?: string;
      }[];
      expect(json.map((e) => e.label).filter(Boolean)).toEqual(['AwaitingRetry', 'Retrying']);
    } finally {
      await stop();
    }
  });

  it('exits 1 when the watched run fails, 3 for an unknown run', async () => {
    const stop = await startWorker({
      'cli.fatal': () => {
        throw permanent(new Error('no'));
      },
    });
    try {
      const { runId } = await cli.client.enqueue('cli.fatal', null);
      const watched = await cyclone('runs', 'watch', runId, '--interval', '100ms');
      expect(watched.code).toBe(1);
      expect(watched.err).toContain(`run ${runId} ended failed (permanent in cli.fatal)`);
    } finally {
      await stop();
    }
    expect((await cyclone('runs', 'watch', '00000000-0000-7000-8000-000000000000')).code).toBe(3);
  });
});
