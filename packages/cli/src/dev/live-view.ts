import type { Client } from '@cyclone/client';
import { isTerminalRun, type RunStatus, type StepEvent } from '@cyclone/core';
import { colourEnabled } from '../terminal/colour.js';
import type { Output } from '../terminal/output.js';

const colours: Readonly<Record<string, string>> = {
  completed: '\u001b[32m',
  running: '\u001b[36m',
  available: '\u001b[33m',
  pending: '\u001b[90m',
  discarded: '\u001b[31m',
  failed: '\u001b[31m',
  cancelled: '\u001b[90m',
};

function paint(state: string, enabled: boolean): string {
  const colour = colours[state];
  return enabled && colour ? `${colour}${state}\u001b[0m` : state;
}

function detailOf(event: StepEvent): string {
  const d = event.detail ?? {};
  switch (event.type) {
    case 'step_started':
      return `attempt ${String(d.attempt)}`;
    case 'step_retry_scheduled':
      return `${event.errorKind ?? 'error'} on attempt ${String(d.attempt)}; retry in ${String(d.delayMs)}ms`;
    case 'step_discarded':
      return `${event.errorKind ?? 'error'}`;
    default:
      return '';
  }
}

/**
 * Prints a run's history as it happens, one line per event, until the run ends, and returns the
 * final run; or `undefined` once `stop` is aborted. Reads through the client only, like any other
 * service would.
 */
export async function followRun(
  client: Client,
  runId: string,
  output: Output,
  stop?: AbortSignal,
): Promise<RunStatus | undefined> {
  const colour = colourEnabled(output);
  const started = Date.now();
  const stamp = () => `+${((Date.now() - started) / 1000).toFixed(2).padStart(6)}s`;
  const nodes = (await client.listSteps(runId)).map((s) => s.node);
  const width = Math.max(5, ...nodes.map((n) => n.length));
  // From the first event on: `run_submitted` is listed under id 0, so no `after` at first.
  let after: number | undefined;
  while (!stop?.aborted) {
    const run = await client.getRun(runId);
    for (const event of await client.events(runId, after === undefined ? {} : { after })) {
      after = event.id;
      const who = (event.node ?? '(run)').padEnd(width);
      const move = `${event.from ?? '(new)'} -> ${paint(event.to ?? '?', colour)}`;
      const detail = detailOf(event);
      output.out(`  ${stamp()}  ${who}  ${move}${detail ? `  (${detail})` : ''}`);
    }
    // The run was read before its events, so a terminal run's last events are in this batch.
    if (isTerminalRun(run.state)) return run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}
