import { describe, expect, it } from 'vitest';
import { useStore } from '../fixture.js';

const fx = useStore();

describe('settlePending', () => {
  it('settles marked runs oldest first, up to the limit, and clears their markers', async () => {
    const a = await fx.job('pending.a');
    const b = await fx.job('pending.b');
    await fx.query(
      `INSERT INTO cyclone_settlements (run_id, created_at) VALUES ($1, now() - interval '1 minute'), ($2, now())`,
      [a.runId, b.runId],
    );
    expect(await fx.store.settlePending(1)).toBe(1);
    expect(await fx.query('SELECT run_id FROM cyclone_settlements')).toEqual([{ run_id: b.runId }]);
    expect(await fx.store.settlePending()).toBe(1);
    expect(await fx.query('SELECT run_id FROM cyclone_settlements')).toEqual([]);
    // Both runs still have an available step, so settling left them running.
    expect((await fx.run(a.runId)).state).toBe('running');
    expect((await fx.run(b.runId)).state).toBe('running');
  });
});
