import { describe, expect, it } from 'vitest';
import { permanent, workflow } from '@cyclone/core';
import { createServer } from '../src/index.js';
import { eventually, testLogger, useServer } from './support.js';

const env = useServer();

const flow = workflow('metered').task('work', 'metered.work', { maxAttempts: 1 }).build();

/** The value of one sample of the Prometheus text, or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('GET /metrics', () => {
  it('reports runs by state, the DLQ by reason and each kind’s queue, from the database', async () => {
    await env.client.submit(flow, {});
    await env.client.enqueue('emails.send', {});
    await env.client.enqueue('emails.send', {}, { scheduledAt: '1h' });
    await env.query(
      "UPDATE cyclone_steps SET scheduled_at = now() - interval '90 seconds' WHERE kind = 'emails.send' AND scheduled_at <= now()",
    );

    const answer = await env.call('GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/plain');
    const text = answer.text;
    expect(text).toContain('# TYPE cyclone_runs gauge');
    expect(sample(text, 'cyclone_runs', 'state="running"')).toBe(3);
    expect(sample(text, 'cyclone_runs', 'state="failed"')).toBe(0);
    expect(sample(text, 'cyclone_queue_available_steps', 'kind="emails.send"')).toBe(2);
    expect(sample(text, 'cyclone_queue_ready_steps', 'kind="emails.send"')).toBe(1);
    expect(
      sample(text, 'cyclone_queue_oldest_ready_age_seconds', 'kind="emails.send"'),
    ).toBeGreaterThanOrEqual(89);
    expect(sample(text, 'cyclone_queue_available_steps', 'kind="metered.work"')).toBe(1);
    expect(sample(text, 'cyclone_dlq_steps', 'reason="permanent"')).toBe(0);

    await env.startWorker({
      handlers: {
        'metered.work': async () => {
          throw permanent(new Error('no'));
        },
      },
      workflows: [flow],
    });
    const after = await eventually(async () => {
      const t = (await env.call('GET', '/metrics')).text;
      return sample(t, 'cyclone_dlq_steps', 'reason="permanent"') === 1 && t;
    }, 'the DLQ gauge to count the discard');
    expect(sample(after, 'cyclone_runs', 'state="failed"')).toBe(1);
    // The kind's queue is empty now: its series reads zero, as a worker's own kinds do, rather
    // than vanishing or keeping its last value.
    expect(sample(after, 'cyclone_queue_available_steps', 'kind="metered.work"')).toBe(0);
    expect(sample(after, 'cyclone_queue_ready_steps', 'kind="metered.work"')).toBe(0);
  });
});

describe('GET /api/events/stream', () => {
  it('streams a change when a run ends, from the database notifications', async () => {
    const { runId } = await env.client.enqueue('stream.job', {});
    const controller = new AbortController();
    const response = await env.server.fetch(
      new Request('http://localhost/api/events/stream', { signal: controller.signal }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(seen)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}: ${seen}`);
        seen += decoder.decode(value);
      }
    };
    await readUntil(/event: ready/);
    await env.client.cancel(runId);
    await readUntil(/"runs-ended"/);
    expect(seen).toContain(runId);
    controller.abort();
    await reader.cancel().catch(() => undefined);
  });

  it('answers unavailable behind a transaction-mode pooler without a listen URL (the dashboard polls)', async () => {
    const server = createServer({
      connectionString: env.url,
      pooler: 'transaction',
      logger: testLogger,
    });
    try {
      const response = await server.fetch(new Request('http://localhost/api/events/stream'));
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('event: unavailable');
      expect(text).not.toContain('event: ready');
    } finally {
      await server.close();
    }
  });
});
