import { describe, expect, it } from 'vitest';
import { Worker } from '../../src/index.js';
import { testLogger } from '../engine.js';
import { useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

/** The URL of the test database with an application name, so its sessions can be found. */
function urlNamed(name: string): string {
  const url = new URL(engine.url);
  url.searchParams.set('application_name', name);
  return url.toString();
}

describe('losing database connections', () => {
  it('keeps a worker running when Postgres terminates its idle connections, and it goes on executing steps', async () => {
    const worker = new Worker({
      connectionString: urlNamed('cyclone-victim'),
      handlers: { 'conn.echo': (ctx): unknown => ctx.input },
      logger: testLogger,
      pollInterval: '100ms',
    });
    await worker.start();
    try {
      const { runId } = await engine.client.enqueue('conn.echo', 'before');
      expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
        'conn.echo': 'before',
      });

      // Every session of the worker: its idle pool connections and its LISTEN connection.
      const killed = await engine.query<{ pid: number }>(
        `SELECT pid FROM (
           SELECT pid FROM pg_stat_activity
           WHERE datname = current_database() AND application_name = 'cyclone-victim'
             AND pid <> pg_backend_pid()
           OFFSET 0
         ) victims
         WHERE pg_terminate_backend(pid)`,
      );
      expect(killed.length).toBeGreaterThan(0);
      const { runId: after } = await engine.client.enqueue('conn.echo', 'after');
      expect(await engine.client.result(after, { timeout: '10s' })).toEqual({
        'conn.echo': 'after',
      });
    } finally {
      await worker.stop({ timeout: '1s' });
    }
  });
});
