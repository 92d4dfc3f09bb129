import { describe, expect, it } from 'vitest';
import { useServer } from './support.js';

const env = useServer();

describe('the fair-share routes', () => {
  it('sets, reads, lists and removes a fair share, stored in the database', async () => {
    const put = await env.call('PUT', '/api/fair-share/reports.render', {
      body: { weights: { 'tenant-a': 3 } },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      fairShare: { kind: 'reports.render', weights: { 'tenant-a': 3 }, keys: 0 },
    });
    expect(
      await env.query('SELECT kind, weights FROM cyclone_fair_shares WHERE kind = $1', [
        'reports.render',
      ]),
    ).toEqual([{ kind: 'reports.render', weights: { 'tenant-a': 3 } }]);

    await env.client.enqueue('reports.render', {}, { concurrencyKey: 'tenant-a' });
    await env.client.enqueue('reports.render', {}, { concurrencyKey: 'tenant-b' });
    const got = await env.call('GET', '/api/fair-share/reports.render');
    expect(got.status).toBe(200);
    expect(got.body.fairShare.keys).toBe(2);
    const list = await env.call('GET', '/api/fair-share');
    expect(list.body).toEqual({
      fairShares: [{ kind: 'reports.render', weights: { 'tenant-a': 3 }, keys: 2 }],
    });

    const removed = await env.call('DELETE', '/api/fair-share/reports.render');
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ kind: 'reports.render', removed: 'fair-share' });
    expect((await env.call('DELETE', '/api/fair-share/reports.render')).status).toBe(404);
    expect((await env.call('GET', '/api/fair-share/reports.render')).status).toBe(404);
  });

  it('answers 400 naming a bad weight, and writes nothing', async () => {
    const bad = await env.call('PUT', '/api/fair-share/reports.bad', {
      body: { weights: { a: 0 } },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('weights.a');
    expect(await env.query('SELECT kind FROM cyclone_fair_shares')).toEqual([]);
  });
});
