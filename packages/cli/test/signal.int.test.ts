import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { useCli } from './support/use-cli.js';

const cli = useCli({ poolSize: 2 });
// These calls name their database themselves (a flag after the arguments).
const cyclone = cli.bare;
const db = cli.db;

const waits = workflow('cli-waits')
  .waitN('votes', { signal: 'vote', n: 3, maxWait: '2h' })
  .waitTimer('cool-off', { waitFor: '10m' })
  .build();

describe('cyclone signal', () => {
  it('delivers a signal, shows what each wait waits for and how long is left, and delivers an id once', async () => {
    const { runId } = await cli.client.submit(waits);
    const sent = await cyclone(
      'signal',
      runId,
      'vote',
      '{"by":"ann"}',
      '--id',
      'v1',
      '--database-url',
      db.url,
    );
    expect(sent).toMatchObject({ code: 0 });
    expect(sent.out).toContain('consumed by votes');
    const again = await cyclone(
      'signal',
      runId,
      'vote',
      '{"by":"ann"}',
      '--id',
      'v1',
      '--database-url',
      db.url,
    );
    expect(again.out).toContain('already delivered');

    const steps = await cyclone('steps', runId, '--database-url', db.url);
    expect(steps.out).toMatch(
      /votes\s+wait_n\s+waiting_signal\s+.*signal vote \(1\/3\), 1h\d+m left/,
    );
    expect(steps.out).toMatch(/cool-off\s+wait_timer\s+waiting_timer\s+.*timer, \d+m(\d+s)? left/);
    const show = await cyclone('runs', 'show', runId, '--database-url', db.url);
    expect(show.out).toMatch(/waiting\s+votes: signal vote \(1\/3\)/);
    expect(show.out).toMatch(/waiting\s+cool-off: timer/);
  });

  it('exits 3 for an unknown run, 1 for a terminal run or a bad name, 2 for a payload that is not JSON', async () => {
    const unknown = await cyclone(
      'signal',
      '0190c1a0-0000-7000-8000-000000000000',
      'vote',
      '--database-url',
      db.url,
    );
    expect(unknown.code).toBe(3);
    const { runId } = await cli.client.submit(
      workflow('cli-done').waitSignal('w', { signal: 's' }).build(),
    );
    expect((await cyclone('signal', runId, 's', '--database-url', db.url)).code).toBe(0);
    const terminal = await cyclone('signal', runId, 's', '--database-url', db.url);
    expect(terminal.code).toBe(1);
    expect(terminal.err).toContain('ALREADY_TERMINAL');
    const badName = await cyclone('signal', runId, 'no spaces', '--database-url', db.url);
    expect(badName.code).toBe(1);
    expect(badName.err).toContain('name');
    const badJson = await cyclone('signal', runId, 's', '{nope', '--database-url', db.url);
    expect(badJson.code).toBe(2);
    expect(badJson.err).toContain('payload must be JSON');
  });
});
