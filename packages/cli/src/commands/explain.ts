import type { NodeExplanation } from '@cyclone/core';
import { requiredArg } from '../framework/command-arguments.js';
import { terminalWidth, wrap } from '../terminal/terminal.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';

/** The explanation as aligned `field value` lines, the message wrapped to the terminal. */
export function explanationLines(e: NodeExplanation, width: number): string[] {
  const fields: [string, string | undefined][] = [
    ['node', e.node],
    ['state', e.label ? `${e.state} (${e.label})` : e.state],
    ['reason', e.reason],
    ['waiting on', e.waitingOn?.join(', ')],
    ['until', e.until?.toISOString()],
    ['worker', e.worker],
  ];
  const lines = fields
    .filter((f): f is [string, string] => f[1] !== undefined && f[1] !== '')
    .map(([k, v]) => `${k.padEnd(11)} ${v}`);
  return [...lines, '', ...wrap(e.message, width)];
}

/**
 * `cyclone explain RUN NODE`: why a node is in its state and what would move it. Exit 3 for an
 * unknown run or node.
 */
export async function explainCommand(ctx: CommandContext): Promise<number> {
  const runId = requiredArg(ctx, 0, 'explain', 'a run id and a node');
  const node = requiredArg(ctx, 1, 'explain', 'a run id and a node');
  const explanation = await withClient(ctx, (client) => client.explain(runId, node));
  if (ctx.flags.json) ctx.output.out(JSON.stringify(explanation, null, 2));
  else for (const line of explanationLines(explanation, terminalWidth())) ctx.output.out(line);
  return 0;
}
