import { describe, expect, it } from 'vitest';
import { useCli } from './support/use-cli.js';

/** Rows of the test database. */
async function query(text: string): Promise<Record<string, unknown>[]> {
  return (await cli.pool.query(text)).rows;
}

const cli = useCli({ poolSize: 2 });
const { cyclone } = cli;

describe('cyclone limits', () => {
  it('sets, lists and removes concurrency caps and rate limits, as the database holds them', async () => {
    expect((await cyclone('limits', 'list')).out).toBe('no limits set');

    const cap = await cyclone('limits', 'set', 'concurrency', 'cli.charge', '--max', '2');
    expect(cap.code).toBe(0);
    expect(cap.out).toBe('set the concurrency limit of cli.charge: at most 2 running');
    const perKey = await cyclone(
      'limits',
      'set',
      'concurrency',
      'cli.email',
      '--max',
      '1',
      '--per-key',
      '--json',
    );
    expect(JSON.parse(perKey.out)).toEqual({
      kind: 'cli.email',
      max: 1,
      perKey: true,
      running: 0,
      waiting: 0,
    });
    const rate = await cyclone(
      'limits',
      'set',
      'rate',
      'cli.crm',
      '--limit',
      '100',
      '--period',
      '1m',
    );
    expect(rate.out).toBe('set the rate limit of cli.crm: at most 100 starts per 1m');
    await cyclone('limits', 'set', 'rate', 'cli.charge', '--limit', '5', '--period', '2500');
    const rows = await query(
      'SELECT kind, concurrency_max, concurrency_per_key, rate_limit, rate_period FROM cyclone_limits ORDER BY kind',
    );
    expect(rows).toEqual([
      {
        kind: 'cli.charge',
        concurrency_max: 2,
        concurrency_per_key: false,
        rate_limit: 5,
        rate_period: '2500',
      },
      {
        kind: 'cli.crm',
        concurrency_max: null,
        concurrency_per_key: false,
        rate_limit: 100,
        rate_period: '1m',
      },
      {
        kind: 'cli.email',
        concurrency_max: 1,
        concurrency_per_key: true,
        rate_limit: null,
        rate_period: null,
      },
    ]);

    // Three ready steps and no worker: the cap of 2 holds one back.
    for (let i = 0; i < 3; i++) await cli.client.enqueue('cli.charge', {});
    const listed = JSON.parse((await cyclone('limits', 'list', '--json')).out);
    expect(listed.concurrency).toEqual([
      { kind: 'cli.charge', max: 2, perKey: false, running: 0, waiting: 1 },
      { kind: 'cli.email', max: 1, perKey: true, running: 0, waiting: 0 },
    ]);
    expect(listed.rate).toEqual([
      { kind: 'cli.charge', limit: 5, period: 2500, perKey: false },
      { kind: 'cli.crm', limit: 100, period: '1m', perKey: false },
    ]);
    const table = (await cyclone('limits', 'list')).out.split('\n');
    expect(table[0]).toMatch(/^LIMIT\s+KIND\s+ALLOWS\s+PER KEY\s+RUNNING\s+WAITING$/);
    expect(table).toContainEqual(
      expect.stringMatching(/^concurrency\s+cli\.charge\s+2 at once\s+no\s+0\s+1$/),
    );
    expect(table).toContainEqual(
      expect.stringMatching(/^concurrency\s+cli\.email\s+1 at once\s+yes\s+0\s+0$/),
    );
    expect(table).toContainEqual(
      expect.stringMatching(/^rate\s+cli\.charge\s+5 per 2500ms\s+no\s+-\s+-$/),
    );
    expect(table).toContainEqual(
      expect.stringMatching(/^rate\s+cli\.crm\s+100 per 1m\s+no\s+-\s+-$/),
    );

    const removed = await cyclone('limits', 'remove', 'rate', 'cli.charge');
    expect(removed.code).toBe(0);
    expect(removed.out).toBe('removed the rate limit of cli.charge');
    expect(
      await query(
        "SELECT concurrency_max, rate_limit FROM cyclone_limits WHERE kind = 'cli.charge'",
      ),
    ).toEqual([{ concurrency_max: 2, rate_limit: null }]);
  });

  it('exits 3 for a limit that is not there, and 2 for a bad call, writing nothing', async () => {
    const missing = await cyclone('limits', 'remove', 'concurrency', 'cli.none');
    expect(missing.code).toBe(3);
    expect(missing.err).toContain('concurrency limit cli.none not found');
    const json = await cyclone('limits', 'remove', 'rate', 'cli.none', '--json');
    expect(json.code).toBe(3);
    expect(JSON.parse(json.err).error.code).toBe('NOT_FOUND');

    for (const argv of [
      ['limits', 'set', 'concurrency', 'cli.bad', '--max', '0'],
      ['limits', 'set', 'concurrency', 'cli.bad', '--max', 'many'],
      ['limits', 'set', 'concurrency', 'cli.bad'],
      ['limits', 'set', 'concurrency', 'cli.bad', '--max', '1', '--period', '1s'],
      ['limits', 'set', 'rate', 'cli.bad', '--limit', '1', '--period', 'soon'],
      ['limits', 'set', 'rate', 'cli.bad', '--limit', '1', '--period', '31d'],
      ['limits', 'set', 'rate', 'cli.bad', '--period', '1s'],
      ['limits', 'set', 'rate', 'cli.bad', '--limit', '1', '--period', '1s', '--max', '2'],
      ['limits', 'set', 'speed', 'cli.bad', '--max', '1'],
      ['limits', 'remove', 'rate'],
    ]) {
      const result = await cyclone(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
    }
    const badKind = await cyclone('limits', 'set', 'concurrency', 'bad kind', '--max', '1');
    expect(badKind.code).toBe(1);
    expect(badKind.err).toContain('kind');
    expect(await query("SELECT kind FROM cyclone_limits WHERE kind LIKE '%bad%'")).toEqual([]);
  });
});
