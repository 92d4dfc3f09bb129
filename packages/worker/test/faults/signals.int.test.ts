import { afterEach, describe, expect, it } from 'vitest';
import { eventRows, stepReaches, stepRow, useTransitionEngine } from '../transitions/helpers.js';
import { spawnFixture, type FixtureProcess } from './child-process.js';

const engine = useTransitionEngine();
const spawned: FixtureProcess[] = [];

afterEach(async () => {
  for (const fixture of spawned.splice(0)) {
    if (fixture.child.exitCode === null && fixture.child.signalCode === null) {
      fixture.child.kill('SIGKILL');
      await fixture.exited;
    }
  }
});

function start(stopTimeout: string): FixtureProcess {
  const fixture = spawnFixture('signal-worker', {
    FIXTURE_DATABASE_URL: engine.url,
    FIXTURE_STOP_TIMEOUT: stopTimeout,
  });
  spawned.push(fixture);
  return fixture;
}

const stopping = (l: Record<string, unknown>): boolean =>
  typeof l.msg === 'string' && l.msg.startsWith('signal received');

describe('handleSignals', () => {
  it('on SIGTERM stops claiming, lets the running step finish, then ends the process by the signal', async () => {
    const fixture = start('1m');
    await fixture.line((l) => l.fixture === 'ready', 'the worker to start');
    const { runId: first } = await engine.client.enqueue('signal.finishes', 1);
    await fixture.line((l) => l.fixture === 'started', 'the handler to start');

    fixture.child.kill('SIGTERM');
    await fixture.line(stopping, 'the worker to begin stopping');
    // Enqueued after the worker stopped claiming: it must stay untouched.
    const { runId: second } = await engine.client.enqueue('signal.finishes', 2);
    fixture.child.stdin!.write('finish\n');

    expect(await fixture.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(await stepRow(engine, first, 'signal.finishes')).toMatchObject({
      state: 'completed',
      attempts: 1,
      output: 'finished',
    });
    expect(await stepRow(engine, second, 'signal.finishes')).toMatchObject({
      state: 'available',
      attempts: 0,
      claimed_by: null,
    });
    expect(fixture.lines.some((l) => l.msg === 'worker stopped')).toBe(true);
  });

  it('on a second SIGTERM releases the steps whose handlers settle, leaves the others to their lease, and exits', async () => {
    const fixture = start('1m');
    const ready = await fixture.line((l) => l.fixture === 'ready', 'the worker to start');
    const { runId: honours } = await engine.client.enqueue('signal.honours', null);
    const { runId: ignores } = await engine.client.enqueue('signal.ignores', null);
    await fixture.line((l) => l.kind === 'signal.honours', 'the honouring handler to start');
    await fixture.line((l) => l.kind === 'signal.ignores', 'the ignoring handler to start');
    await stepReaches(engine, ignores, 'signal.ignores', 'running');

    fixture.child.kill('SIGTERM');
    await fixture.line(stopping, 'the worker to begin stopping');
    fixture.child.kill('SIGTERM');

    // Well before the one-minute stop timeout: the second signal cut the wait short.
    expect(await fixture.exited).toEqual({ code: 128 + 15, signal: null });
    expect(await stepRow(engine, honours, 'signal.honours')).toMatchObject({
      state: 'available',
      attempts: 0,
    });
    expect((await eventRows(engine, honours)).map((e) => e.type)).toContain('step_released');
    expect(await stepRow(engine, ignores, 'signal.ignores')).toMatchObject({
      state: 'running',
      claimed_by: ready.workerId,
    });
    expect((await eventRows(engine, ignores)).map((e) => e.type)).not.toContain('step_released');
  });
});
