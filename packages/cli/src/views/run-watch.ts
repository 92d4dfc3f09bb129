import type { Client } from '@cyclone/client';
import {
  isTerminalRun,
  stepLabel,
  type RunStatus,
  type StepEvent,
  type StepStatus,
} from '@cyclone/core';
import type { Subscription } from '@cyclone/store-postgres';
import type { Output } from '../terminal/output.js';
import { fit } from '../terminal/terminal.js';

/** How a watch prints: live redraws on a terminal, blocks on a pipe, or JSON lines. */
export interface WatchOptions {
  readonly output: Output;
  readonly json: boolean;
  readonly width: number;
  /** How often to look again when no notification came. */
  readonly intervalMs: number;
}

/** `[#####-----] 3/7 steps completed`, the bar fitted into `width`. */
export function progressLine(done: number, total: number, width: number): string {
  const text = ` ${done}/${total} steps completed`;
  const bar = Math.max(5, Math.min(30, width - text.length - 2));
  const filled = total === 0 ? bar : Math.round((done / total) * bar);
  return fit(`[${'#'.repeat(filled)}${'-'.repeat(bar - filled)}]${text}`, width);
}

/** The lines of one view of the run: the run, its progress, each node's state. */
export function watchBlock(run: RunStatus, steps: readonly StepStatus[], width: number): string[] {
  const done = steps.filter((s) => s.state === 'completed').length;
  const nodes = steps.filter((s) => s.itemIndex === null);
  const nameWidth = Math.min(40, Math.max(4, ...nodes.map((n) => n.node.length)));
  return [
    fit(`run ${run.id}  ${run.workflow}  ${run.state}`, width),
    progressLine(done, steps.length, width),
    ...nodes.map((n) => {
      const label = stepLabel(n);
      const items = steps.filter((s) => s.itemIndex !== null && s.node === n.node);
      const itemsDone = items.filter((s) => s.state === 'completed').length;
      const extra = items.length > 0 ? `  items ${itemsDone}/${items.length}` : '';
      return fit(
        `  ${n.node.padEnd(nameWidth)}  ${n.state}${label ? ` (${label})` : ''}${extra}`,
        width,
      );
    }),
  ];
}

/** A promise that a notification (or the interval) resolves, renewed after each wake-up. */
class Wake {
  private resolve: (() => void) | undefined;
  private pending = false;

  notify(): void {
    this.pending = true;
    this.resolve?.();
  }

  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.resolve = undefined;
        this.pending = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.resolve = done;
    });
  }
}

/**
 * Follows a run until it ends and returns its final status. It looks again whenever the store
 * notifies that steps became claimable or runs ended, and at least every `intervalMs` (a
 * notification can be missed, and most transitions notify nothing), and prints a view whenever
 * the run's history grew: redrawn in place on a terminal, one JSON line per event under `json`.
 */
export async function watchRun(
  client: Client,
  runId: string,
  options: WatchOptions,
): Promise<RunStatus> {
  const { output } = options;
  await client.getRun(runId); // NotFoundError before anything is printed
  const wake = new Wake();
  let subscription: Subscription | undefined;
  try {
    subscription = await client.store.subscribe({
      stepsAvailable: () => wake.notify(),
      runsEnded: (ids) => {
        if (ids.includes(runId)) wake.notify();
      },
      reconnected: () => wake.notify(),
      error: () => undefined, // it reconnects by itself; polling covers the gap
    });
  } catch {
    subscription = undefined; // no notifications: polling alone
  }
  // From the first event on: `run_submitted` is listed under id 0, so no `after` at first.
  let after: number | undefined;
  let drawn = 0;
  let first = true;
  // The run's state in the view last drawn: a run can end after its last event was read, and
  // the view must then show it ended although no event is new.
  let shownState: string | undefined;
  try {
    for (;;) {
      // The run is read before its events, so a terminal run's last events are in this batch.
      const run = await client.getRun(runId);
      const events: StepEvent[] = await client.events(runId, after === undefined ? {} : { after });
      if (events.length > 0 || first || (!options.json && run.state !== shownState)) {
        after = events.at(-1)?.id ?? after;
        const steps = await client.listSteps(runId);
        const done = steps.filter((s) => s.state === 'completed').length;
        if (options.json) {
          for (const e of events) {
            output.out(
              JSON.stringify({
                at: e.at,
                node: e.node,
                type: e.type,
                from: e.from,
                to: e.to,
                runState: run.state,
                completed: done,
                total: steps.length,
              }),
            );
          }
        } else {
          const block = watchBlock(run, steps, options.width);
          // On a terminal the previous view is replaced: cursor up over it, clear to the end.
          if (output.isTTY && drawn > 0) output.out(`\u001b[${drawn}F\u001b[J${block[0]}`);
          else output.out(block[0]!);
          for (const line of block.slice(1)) output.out(line);
          drawn = output.isTTY ? block.length : 0;
          shownState = run.state;
        }
        first = false;
      }
      if (isTerminalRun(run.state)) return run;
      await wake.wait(options.intervalMs);
    }
  } finally {
    await subscription?.close();
  }
}
