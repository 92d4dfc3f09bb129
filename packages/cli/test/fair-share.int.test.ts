import { describe, expect, it } from 'vitest';
import { useCli } from './support/use-cli.js';

const cli = useCli({ poolSize: 2 });
const { cyclone } = cli;

describe('cyclone fair-share', () => {
  it('sets, lists and removes a fair share, as the database holds it', async () => {
    expect((await cyclone('fair-share', 'list')).out).toBe('no kind under fair share');

    const set = await cyclone(
      'fair-share',
      'set',
      'cli.reports',
      '--weights',
      'tenant-a=3,tenant-b=2',
    );
    expect(set.code).toBe(0);
    expect(set.out).toBe(
      'cli.reports is under fair share: its keys take turns (weights tenant-a=3, tenant-b=2; others 1)',
    );
    expect((await cli.pool.query('SELECT kind, weights FROM cyclone_fair_shares')).rows).toEqual([
      { kind: 'cli.reports', weights: { 'tenant-a': 3, 'tenant-b': 2 } },
    ]);
    const listed = await cyclone('fair-share', 'list', '--json');
    expect(JSON.parse(listed.out)).toEqual({
      fairShares: [{ kind: 'cli.reports', weights: { 'tenant-a': 3, 'tenant-b': 2 }, keys: 0 }],
    });
    expect((await cyclone('fair-share', 'list')).out).toContain('tenant-a=3, tenant-b=2');

    const removed = await cyclone('fair-share', 'remove', 'cli.reports');
    expect(removed.code).toBe(0);
    expect((await cyclone('fair-share', 'remove', 'cli.reports')).code).toBe(3);
  });

  it('refuses a bad weight with exit 2 and writes nothing', async () => {
    const bad = await cyclone('fair-share', 'set', 'cli.bad', '--weights', 'a=0');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--weights expects');
    expect((await cli.pool.query('SELECT kind FROM cyclone_fair_shares')).rows).toEqual([]);
  });
});
