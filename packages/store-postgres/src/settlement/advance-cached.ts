import {
  cacheKeyOf,
  EventType,
  NodeType,
  RunState,
  StepState,
  StepTrigger,
  stepChange,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { findCachedOutputs } from '../tables/cache/find-cached-outputs.js';
import { loadReadyCached } from '../tables/steps/load-ready-cached.js';
import { promoteCacheMisses } from '../tables/steps/promote-cache-misses.js';
import { promoteTask } from '../tables/steps/promote-ready.js';
import { singleFromChangeParams } from '../tables/transitions/change-params.js';
import { completeNodes } from './complete-nodes.js';
import type { SettlingRun } from './settling-run.js';

const cacheHit = {
  change: stepChange(StepTrigger.CacheHit, StepState.Completed, NodeType.Task),
  timedOut: false,
  cached: true,
  eventType: EventType.StepCached,
};
const promoteMiss = singleFromChangeParams(promoteTask);

/**
 * Moves a run's ready cached task nodes on: computes each one's key (core's `cacheKeyOf`, from the
 * run input and its dependencies' outputs), completes those whose key the cache holds with the
 * cached output (`pending -> completed` by `cache_hit`, never claimed), and promotes the others
 * as usual, keeping the key for their handler's output. Nothing moves in a run that is not running
 * (a paused run's ready nodes wait for the resume, decision 14). Runs under the run's lock.
 *
 * @returns whether a node completed from the cache (its dependents may now be ready)
 */
export async function advanceCached(db: SqlRunner, run: SettlingRun): Promise<boolean> {
  if (run.ended || run.state !== RunState.Running) return false;
  const ready = await loadReadyCached(db, { runId: run.id, pendingState: StepState.Pending });
  if (ready.length === 0) return false;
  const keyed = ready.map((step) => ({
    step,
    key:
      step.cache === null
        ? null
        : cacheKeyOf({ kind: step.kind, cache: step.cache, input: step.input, deps: step.deps }),
  }));
  const lookups = keyed.filter((k): k is typeof k & { key: string } => k.key !== null);
  const found =
    lookups.length === 0
      ? []
      : await findCachedOutputs(db, {
          kinds: lookups.map((k) => k.step.kind),
          keys: lookups.map((k) => k.key),
        });
  const outputs = new Map(found.map((row) => [`${row.kind}\u0000${row.key}`, row.output]));
  const hits = [];
  const misses = [];
  for (const k of keyed) {
    const output = k.key === null ? undefined : outputs.get(`${k.step.kind}\u0000${k.key}`);
    if (output === undefined) misses.push(k);
    else hits.push({ stepId: k.step.id, outputJson: output, claimToken: k.step.claim_token });
  }
  if (misses.length > 0) {
    await promoteCacheMisses(db, {
      ...promoteMiss,
      stepIds: misses.map((m) => m.step.id),
      cacheKeys: misses.map((m) => m.key),
    });
  }
  if (hits.length === 0) return false;
  const done = await completeNodes(db, cacheHit, hits);
  run.absorb(done);
  return done.completed.size > 0;
}
