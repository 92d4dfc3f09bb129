import { describe, expect, test } from 'vitest';
import { cacheKeyOf } from './result-cache.js';
import { stableHash } from './stable-hash.js';
import { workflow } from './workflow-builder.js';
import { insertedStepState } from './propose.js';
import { proposeStep } from './propose.js';
import { StepLabel, stepLabel } from './step-labels.js';
import { StepTrigger } from './triggers.js';
import { issueAt, w } from '../test/builder-fixtures.js';

describe('cacheKeyOf', () => {
  const base = { kind: 'reports.render', deps: {} };

  test('a key path takes the value at the path: strings as they are, numbers and booleans as JSON', () => {
    const cache = { key: 'report.id' };
    expect(cacheKeyOf({ ...base, cache, input: { report: { id: 'r-1' } } })).toBe('r-1');
    expect(cacheKeyOf({ ...base, cache, input: { report: { id: 42 } } })).toBe('42');
    expect(cacheKeyOf({ ...base, cache, input: { report: { id: true } } })).toBe('true');
  });

  test('objects and lists at the path, and over-long strings, key by their stable hash', () => {
    const cache = { key: 'q' };
    expect(cacheKeyOf({ ...base, cache, input: { q: { b: 1, a: 2 } } })).toBe(
      stableHash({ a: 2, b: 1 }),
    );
    const long = 'x'.repeat(600);
    expect(cacheKeyOf({ ...base, cache, input: { q: long } })).toBe(stableHash(long));
  });

  test('an input without the field, or null there, is not cached', () => {
    const cache = { key: 'reportId' };
    expect(cacheKeyOf({ ...base, cache, input: {} })).toBeNull();
    expect(cacheKeyOf({ ...base, cache, input: { reportId: null } })).toBeNull();
    expect(cacheKeyOf({ ...base, cache, input: 'not an object' })).toBeNull();
  });

  test('without a path, a hash of kind, input and dependency outputs, whatever the key order', () => {
    const a = cacheKeyOf({
      kind: 'k',
      cache: {},
      input: { x: 1, y: 2 },
      deps: { fetch: { rows: 3, at: 'a' } },
    });
    const b = cacheKeyOf({
      kind: 'k',
      cache: {},
      input: { y: 2, x: 1 },
      deps: { fetch: { at: 'a', rows: 3 } },
    });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKeyOf({ kind: 'other', cache: {}, input: { x: 1, y: 2 }, deps: {} })).not.toBe(a);
    expect(
      cacheKeyOf({ kind: 'k', cache: {}, input: { x: 1, y: 2 }, deps: { fetch: { rows: 4 } } }),
    ).not.toBe(a);
  });
});

describe('the cache option of .task()', () => {
  test('builds into the definition as ttlMs and key', () => {
    const def = workflow('report')
      .task('render', 'reports.render', { cache: { ttl: '1h', key: 'reportId' } })
      .task('plain', 'reports.plain')
      .build();
    expect(def.nodes[0]).toMatchObject({ cache: { ttlMs: 3_600_000, key: 'reportId' } });
    expect(def.nodes[1]).not.toHaveProperty('cache');
    const hashed = workflow('r')
      .task('t', 'k', { cache: { ttl: 1000 } })
      .build();
    expect(hashed.nodes[0]).toMatchObject({ cache: { ttlMs: 1000 } });
    expect((hashed.nodes[0] as { cache: object }).cache).not.toHaveProperty('key');
  });

  test('refuses a ttl that is not a duration, a key that is not a dot path, and cache on a fan-out', () => {
    expect(
      issueAt(w().task('t', 'k', { cache: { ttl: 'soon' as never } }), 'nodes.t.cache.ttl').message,
    ).toMatch(/expected a time to live/);
    expect(
      issueAt(w().task('t', 'k', { cache: { ttl: '1m', key: 'a..b' } }), 'nodes.t.cache.key')
        .message,
    ).toMatch(/dot path/);
    expect(
      issueAt(
        w()
          .task('list', 'k')
          .fanOut('each', 'k', { from: 'list', cache: { ttl: '1m' } } as never),
        'nodes.each.cache',
      ).message,
    ).toMatch(/cache/);
  });
});

describe('the cache_hit row and the Cached label', () => {
  test('a cached task completes from pending by cache_hit; nothing else takes that row', () => {
    expect(proposeStep('pending', 'completed', StepTrigger.CacheHit, 'task').accepted).toBe(true);
    expect(proposeStep('pending', 'completed', StepTrigger.CacheHit, 'item').accepted).toBe(false);
    expect(proposeStep('available', 'completed', StepTrigger.CacheHit, 'task').accepted).toBe(
      false,
    );
  });

  test('a cached root task is inserted pending, to be looked up before anything claims it', () => {
    expect(insertedStepState({ nodeType: 'task', hasDependencies: false, cached: true })).toBe(
      'pending',
    );
    expect(insertedStepState({ nodeType: 'task', hasDependencies: false })).toBe('available');
  });

  test('a completed cached step is labelled Cached', () => {
    const step = {
      state: 'completed' as const,
      attempts: 0,
      scheduledAt: new Date(0),
      errorKind: null,
      reclaims: 0,
      timedOut: false,
    };
    expect(stepLabel({ ...step, cached: true })).toBe(StepLabel.Cached);
    expect(stepLabel(step)).toBeUndefined();
  });
});
