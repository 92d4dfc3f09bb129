import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { useServer } from './support.js';

const env = useServer();

const order = workflow('srv-force')
  .task('charge', 'srv-force.charge')
  .task('ship', 'srv-force.ship', { dependsOn: ['charge'] })
  .build();

const unknownId = '0190f0c4-0000-7000-8000-000000000000';

describe('POST /api/runs/:id/nodes/:node/transition', () => {
  it('without force accepts only what the table does and answers 409 with the reason otherwise', async () => {
    const { runId } = await env.client.submit(order, null);
    const path = `/api/runs/${runId}/nodes/ship/transition`;
    const refused = await env.call('POST', path, { body: { to: 'completed', reason: 'skip' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'TRANSITION_REFUSED',
      reason: 'invalid-entry',
    });
    expect(refused.body.error.message).toContain('ship');

    const cancelled = await env.call('POST', path, {
      body: { to: 'cancelled', reason: 'no ship' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.move).toMatchObject({ from: 'pending', to: 'cancelled', forced: false });

    const again = await env.call('POST', path, { body: { to: 'cancelled', reason: 'no ship' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'TRANSITION_REFUSED', reason: 'duplicate' });
  });

  it('with force applies the move, recorded forced with the reason in the events', async () => {
    const { runId } = await env.client.submit(order, null);
    const answer = await env.call('POST', `/api/runs/${runId}/nodes/charge/transition`, {
      body: { to: 'discarded', reason: 'fraud', force: true },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.run.state).toBe('failed');
    const events = await env.call('GET', `/api/runs/${runId}/events`);
    const move = events.body.events.find(
      (e: { node: string; trigger: string }) => e.node === 'charge' && e.trigger === 'force',
    );
    expect(move).toMatchObject({ type: 'step_discarded', forced: true, reason: 'fraud' });

    const terminal = await env.call('POST', `/api/runs/${runId}/nodes/ship/transition`, {
      body: { to: 'completed', reason: 'late', force: true },
    });
    expect(terminal.status).toBe(409);
    expect(terminal.body.error).toMatchObject({ code: 'ALREADY_TERMINAL', reason: 'terminal' });
  });

  it('answers 400 naming the field and 404 for an unknown run or node, writing nothing', async () => {
    const { runId } = await env.client.submit(order, null);
    const path = `/api/runs/${runId}/nodes/charge/transition`;
    const bad = [
      [{ to: 'running', reason: 'r' }, 'to'],
      [{ to: 'completed', reason: '' }, 'reason'],
      [{ to: 'completed', reason: '   ' }, 'reason'],
      [{ to: 'cancelled', reason: 'r', output: 1 }, 'output'],
      [{ to: 'cancelled', reason: 'r', force: 'yes' }, 'force'],
    ] as const;
    for (const [body, field] of bad) {
      const answer = await env.call('POST', path, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.issues.map((i: { path: string }) => i.path)).toContain(field);
    }
    const node = await env.call('POST', `/api/runs/${runId}/nodes/nope/transition`, {
      body: { to: 'cancelled', reason: 'r' },
    });
    expect(node.status).toBe(404);
    const run = await env.call('POST', `/api/runs/${unknownId}/nodes/charge/transition`, {
      body: { to: 'cancelled', reason: 'r' },
    });
    expect(run.status).toBe(404);
    const [row] = await env.query(
      'SELECT state FROM cyclone_steps WHERE run_id = $1 AND node = $2',
      [runId, 'charge'],
    );
    expect(row).toMatchObject({ state: 'available' });
  });
});
