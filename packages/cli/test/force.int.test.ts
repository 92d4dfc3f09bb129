import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { useCli } from './support/use-cli.js';

const cli = useCli();
const { cyclone } = cli;

describe('cyclone force', () => {
  it('moves a node by hand, and events show it forced with the reason', async () => {
    const def = workflow('cli-force')
      .task('charge', 'cli.nobody')
      .task('ship', 'cli.nobody', { dependsOn: ['charge'] })
      .build();
    const { runId } = await cli.client.submit(def, null);
    const done = await cyclone(
      'force',
      runId,
      'charge',
      '--to',
      'completed',
      '--output',
      '{"id":"ch_1"}',
      '--reason',
      'charged by hand',
    );
    expect(done.code).toBe(0);
    expect(done.out).toContain('available -> completed');
    expect(await cli.client.output(runId, 'charge')).toEqual({ id: 'ch_1' });
    expect((await cli.client.listSteps(runId)).find((s) => s.node === 'ship')?.state).toBe(
      'available',
    );
    const events = await cyclone('events', runId);
    expect(events.out).toContain('forced: charged by hand');
    const json = JSON.parse((await cyclone('events', runId, '--json')).out) as {
      node: string;
      forced?: boolean;
      reason?: string;
    }[];
    expect(json.find((e) => e.node === 'charge' && e.forced)).toMatchObject({
      reason: 'charged by hand',
    });
  });

  it('exit 1 with the reason when refused, 2 for bad usage, 3 for an unknown node', async () => {
    const { runId } = await cli.client.enqueue('cli.nobody', null);
    const twice = ['force', runId, 'cli.nobody', '--to', 'cancelled', '--reason', 'x'];
    expect((await cyclone(...twice)).code).toBe(0);
    const refused = await cyclone(...twice, '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.err)).toMatchObject({ error: { code: 'TRANSITION_REFUSED' } });
    expect(
      (await cyclone('force', runId, 'cli.nobody', '--to', 'running', '--reason', 'x')).code,
    ).toBe(2);
    expect((await cyclone('force', runId, 'cli.nobody', '--to', 'completed')).code).toBe(2);
    expect(
      (
        await cyclone(
          'force',
          runId,
          'cli.nobody',
          '--to',
          'completed',
          '--output',
          '{no',
          '--reason',
          'x',
        )
      ).code,
    ).toBe(2);
    expect((await cyclone('force', runId, 'nope', '--to', 'cancelled', '--reason', 'x')).code).toBe(
      3,
    );
  });
});
