import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { useStore } from '../fixture.js';

const fx = useStore();

describe('storedDefinition', () => {
  it('reads the newest definition stored under a workflow name', async () => {
    const v1 = workflow('versioned').task('a', 'v.a').build();
    const v2 = workflow('versioned')
      .task('a', 'v.a')
      .task('b', 'v.b', { dependsOn: ['a'] })
      .build();
    await fx.submit(runOfDefinition(v1, '{}'));
    await fx.submit(runOfDefinition(v2, '{}'));
    await fx.query(
      "UPDATE cyclone_workflows SET created_at = now() - interval '1 day' WHERE hash = $1",
      [v1.hash],
    );
    expect(await fx.store.storedDefinition('versioned')).toMatchObject({
      name: 'versioned',
      hash: v2.hash,
    });
    expect(await fx.store.storedDefinition('unknown')).toBeUndefined();
  });
});
