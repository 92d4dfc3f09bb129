import type { ExhaustedReason } from '@cyclone/client';
import { UsageError } from '../framework/cli-error.js';
import { table } from '../terminal/output.js';
import { terminalWidth } from '../terminal/terminal.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';

const Reasons: readonly string[] = ['retryable', 'permanent', 'deadline', 'reclaim_limit'];

function reasonOption(ctx: CommandContext): ExhaustedReason | undefined {
  const reason = ctx.options.reason;
  if (reason === undefined) return undefined;
  if (typeof reason !== 'string' || !Reasons.includes(reason)) {
    throw new UsageError(
      `--reason must be one of ${Reasons.join(', ')}, got ${JSON.stringify(reason)}`,
    );
  }
  return reason as ExhaustedReason;
}

function positive(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000) {
    throw new UsageError(`${flag} must be an integer from 1 to 1000, got ${JSON.stringify(value)}`);
  }
  return n;
}

function workflowOption(ctx: CommandContext): { workflow?: string } {
  return typeof ctx.options.workflow === 'string' ? { workflow: ctx.options.workflow } : {};
}

/** `cyclone dlq list`: the discarded steps, newest first; states and reasons as stored. */
export async function dlqListCommand(ctx: CommandContext): Promise<number> {
  const reason = reasonOption(ctx);
  const limit = positive(ctx.options.limit, '--limit') ?? 50;
  const page = await withClient(ctx, (client) =>
    client.listExhausted({ ...(reason ? { reason } : {}), ...workflowOption(ctx), limit }),
  );
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify(page, null, 2));
    return 0;
  }
  ctx.output.out(
    table(
      ['run', 'workflow', 'node', 'state', 'reason', 'attempts', 'ended', 'error'],
      page.steps.map((s) => [
        s.runId,
        s.workflow,
        s.itemIndex === null ? s.node : `${s.node}[${s.itemIndex}]`,
        'discarded',
        s.reason,
        `${s.attempts}/${s.maxAttempts}`,
        s.endedAt.toISOString(),
        (s.error ?? '-').split('\n')[0]!.slice(0, 60),
      ]),
      { width: terminalWidth(), shrink: [7] },
    ),
  );
  return 0;
}

/** `cyclone dlq redrive`: retries every matching discarded step. */
export async function dlqRedriveCommand(ctx: CommandContext): Promise<number> {
  const reason = reasonOption(ctx);
  let before: Date | undefined;
  const beforeText = ctx.options.before;
  if (beforeText !== undefined) {
    before = typeof beforeText === 'string' ? new Date(beforeText) : new Date(Number.NaN);
    if (Number.isNaN(before.getTime())) {
      throw new UsageError(`--before must be a date or time, got ${JSON.stringify(beforeText)}`);
    }
  }
  const limit = positive(ctx.options.limit, '--limit');
  const result = await withClient(ctx, (client) =>
    client.redrive({
      ...(reason ? { reason } : {}),
      ...workflowOption(ctx),
      ...(before ? { before } : {}),
      ...(limit ? { limit } : {}),
    }),
  );
  if (ctx.flags.json) ctx.output.out(JSON.stringify(result));
  else ctx.output.out(`retried ${result.retried} step(s) in ${result.runs.length} run(s)`);
  return 0;
}
