/**
 * Readers and handlers shared by the fan-out transition tests: a fan-out node's item tasks as
 * they are stored, and a handler that records how many items run at once.
 */
import type { Handler } from '../../src/index.js';
import type { Engine, StepRow } from './helpers.js';

/** The item tasks of a run's fan-out node, in item order. */
export async function itemRows(engine: Engine, runId: string, node: string): Promise<StepRow[]> {
  return engine.query<StepRow & Record<string, unknown>>(
    `SELECT i.* FROM cyclone_steps i JOIN cyclone_steps n ON n.id = i.parent_step_id
     WHERE n.run_id = $1 AND n.node = $2 AND n.item_index IS NULL ORDER BY i.item_index`,
    [runId, node],
  );
}

/** The states of a fan-out node's item tasks, in item order. */
export async function itemStates(engine: Engine, runId: string, node: string): Promise<string[]> {
  return (await itemRows(engine, runId, node)).map((r) => r.state);
}

/**
 * A handler that counts the handlers of its kind running at once and remembers the highest
 * count; `release` lets a test hold each call until it says so.
 */
export function concurrencyProbe(work: (item: unknown, index: number) => Promise<unknown>) {
  let running = 0;
  let highest = 0;
  const handler: Handler = async (ctx) => {
    running += 1;
    highest = Math.max(highest, running);
    try {
      return await work(ctx.item, ctx.index!);
    } finally {
      running -= 1;
    }
  };
  return {
    handler,
    get highest() {
      return highest;
    },
  };
}
