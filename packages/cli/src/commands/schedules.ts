import type { ScheduleFire, ScheduleStatus } from '@cyclone/client';
import { StepLabel } from '@cyclone/core';
import { UsageError } from '../framework/cli-error.js';
import { table } from '../terminal/output.js';
import { terminalWidth } from '../terminal/terminal.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';

const at = (d: Date | null) => (d === null ? '-' : d.toISOString());

/** The label of a fire in listings: core's `Late` when handled more than 15 s after its tick. */
export function fireLabel(fire: ScheduleFire): string {
  return fire.late ? StepLabel.Late : '-';
}

function target(s: ScheduleStatus): string {
  return s.workflow !== null ? `workflow ${s.workflow}` : `kind ${s.kind ?? '-'}`;
}

function scheduleId(ctx: CommandContext, command: string): string {
  const id = ctx.args[0];
  if (!id) throw new UsageError(`schedules ${command} needs a schedule id`);
  return id;
}

/** `cyclone schedules list`: every schedule with its state, next tick and failures. */
export async function schedulesListCommand(ctx: CommandContext): Promise<number> {
  const schedules = await withClient(ctx, (client) => client.listSchedules());
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify(schedules, null, 2));
    return 0;
  }
  ctx.output.out(
    table(
      ['id', 'target', 'cron', 'timezone', 'enabled', 'overlap', 'next run', 'failures'],
      schedules.map((s) => [
        s.id,
        target(s),
        s.cron,
        s.timezone,
        String(s.enabled),
        s.overlap,
        at(s.nextRunAt),
        String(s.consecutiveFailures),
      ]),
      { width: terminalWidth(), shrink: [1] },
    ),
  );
  return 0;
}

/** `cyclone schedules show ID`: one schedule and its newest fires. */
export async function schedulesShowCommand(ctx: CommandContext): Promise<number> {
  const id = scheduleId(ctx, 'show');
  const [schedule, fires] = await withClient(ctx, async (client) => [
    await client.getSchedule(id),
    await client.listScheduleFires(id, { limit: 20 }),
  ]);
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify({ ...schedule, fires }, null, 2));
    return 0;
  }
  const fields: [string, string][] = [
    ['id', schedule.id],
    ['target', target(schedule)],
    ['cron', `${schedule.cron} (${schedule.timezone})`],
    ['enabled', String(schedule.enabled)],
    ['overlap', schedule.overlap],
    ['catch-up', `${schedule.catchUp} (limit ${schedule.catchUpLimit})`],
    ['next run', at(schedule.nextRunAt)],
    ['last fire', at(schedule.lastFireAt)],
    ['last run', schedule.lastRunId ?? '-'],
    ['failures', String(schedule.consecutiveFailures)],
    ['last error', schedule.lastError ?? '-'],
  ];
  ctx.output.out(fields.map(([k, v]) => `${k.padEnd(10)} ${v}`).join('\n'));
  ctx.output.out('');
  ctx.output.out(
    table(
      ['fire at', 'outcome', 'label', 'run', 'error'],
      fires.map((f) => [at(f.fireAt), f.outcome, fireLabel(f), f.runId ?? '-', f.error ?? '-']),
      { width: terminalWidth(), shrink: [4] },
    ),
  );
  return 0;
}

/** `cyclone schedules pause ID` / `resume ID`. */
export function schedulesToggleCommand(enable: boolean) {
  return async (ctx: CommandContext): Promise<number> => {
    const id = scheduleId(ctx, enable ? 'resume' : 'pause');
    const schedule = await withClient(ctx, (client) =>
      enable ? client.resumeSchedule(id) : client.pauseSchedule(id),
    );
    if (ctx.flags.json) ctx.output.out(JSON.stringify(schedule, null, 2));
    else
      ctx.output.out(
        enable
          ? `resumed schedule ${id}; next run ${at(schedule.nextRunAt)}`
          : `paused schedule ${id}`,
      );
    return 0;
  };
}

/** `cyclone schedules delete ID`: the schedule and its fires' record go; its runs stay. */
export async function schedulesDeleteCommand(ctx: CommandContext): Promise<number> {
  const id = scheduleId(ctx, 'delete');
  const schedule = await withClient(ctx, (client) => client.deleteSchedule(id));
  if (ctx.flags.json) ctx.output.out(JSON.stringify(schedule, null, 2));
  else ctx.output.out(`deleted schedule ${id}`);
  return 0;
}

function parseTime(value: unknown, flag: string): Date {
  const d = typeof value === 'string' ? new Date(value) : undefined;
  if (!d || Number.isNaN(d.getTime())) {
    throw new UsageError(
      `${flag} expects an ISO 8601 time such as 2026-03-01T00:00:00Z, got ${String(value)}`,
    );
  }
  return d;
}

/** `cyclone schedules backfill ID --from T --to T`: one run per past tick in [from, to). */
export async function schedulesBackfillCommand(ctx: CommandContext): Promise<number> {
  const id = scheduleId(ctx, 'backfill');
  const from = parseTime(ctx.options.from, '--from');
  const to = parseTime(ctx.options.to, '--to');
  const result = await withClient(ctx, (client) => client.backfill(id, { from, to }));
  if (ctx.flags.json) ctx.output.out(JSON.stringify(result, null, 2));
  else
    ctx.output.out(
      `backfilled schedule ${id}: ${result.created} run(s) created, ${result.skipped} tick(s) had one already`,
    );
  return 0;
}
