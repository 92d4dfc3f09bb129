import { z } from 'zod';
import {
  CatchUpPolicy,
  DefaultCatchUpLimit,
  DefaultCatchUpPolicy,
  DefaultOverlapPolicy,
  DefaultScheduleTimezone,
  NamePattern,
  OverlapPolicy,
  parseCronSchedule,
  parseWorkflowDefinition,
  textValue,
  ValidationError,
  type SubmitInputOf,
  type WorkflowDefinition,
} from '@cyclone/core';

/** The longest schedule id, in Unicode characters. */
export const MaxScheduleIdLength = 512;

/**
 * What `client.schedule()` takes: a cron schedule of a workflow or of a standalone job. With a
 * built definition as `workflow`, `input` is typed (and checked) by its input schema.
 */
export interface ScheduleOptions<D extends WorkflowDefinition = WorkflowDefinition> {
  /** The schedule's id; `schedule()` upserts by it. */
  readonly id: string;
  /** 5 fields, or 6 with seconds first. */
  readonly cron: string;
  /** An IANA time zone the cron fields are read in. @defaultValue `'UTC'` */
  readonly timezone?: string;
  /** A built definition (stored by hash, as submit does) or the name of one registered elsewhere. */
  readonly workflow?: D | string;
  /** A standalone job kind; exactly one of `workflow` and `kind`. */
  readonly kind?: string;
  /**
   * The run input (job arguments) of every fire. A built definition's input schema checks it
   * here (a `ValidationError` writes nothing) and again at each fire by a scheduler that was given
   * the definition, where a refusal records the fire `failed` with the issues and starts no run.
   */
  readonly input?: SubmitInputOf<D>;
  /** @defaultValue true */
  readonly enabled?: boolean;
  /** What a fire does while the previous run is active. @defaultValue `'skip'` */
  readonly overlap?: OverlapPolicy;
  /**
   * What the ticks one downtime missed (their time passed while no scheduler led) start: `none`
   * no run, `latest` one, for the newest, `all` one per tick up to `catchUpLimit`. Every other
   * tick fires, however late. @defaultValue `'latest'`
   */
  readonly catchUp?: CatchUpPolicy;
  /** Most of one downtime's missed ticks fired under catch-up `all`. @defaultValue 100 */
  readonly catchUpLimit?: number;
}

/** Options of `client.listScheduleFires`. */
export interface ListScheduleFiresOptions {
  /** @defaultValue 50 */
  readonly limit?: number;
}

/** A past range of ticks for `client.backfill`: `[from, to)`. */
export interface BackfillRange {
  readonly from: Date;
  readonly to: Date;
}

const nameSchema = (what: string) =>
  textValue(what, { maxLength: 128 }).regex(NamePattern, {
    error: (issue) =>
      `expected 1 to 128 letters, digits, or _ . : -, got ${JSON.stringify(issue.input)}`,
  });

const scheduleSchema = z
  .object({
    id: textValue('a schedule id', { maxLength: MaxScheduleIdLength }),
    cron: z.unknown(),
    timezone: z.unknown().optional(),
    workflow: z.union([nameSchema('a workflow name'), z.object({}).passthrough()]).optional(),
    kind: nameSchema('a handler kind').optional(),
    input: z.unknown().optional(),
    enabled: z.boolean().optional(),
    overlap: z.enum(Object.values(OverlapPolicy) as [OverlapPolicy, ...OverlapPolicy[]]).optional(),
    catchUp: z.enum(Object.values(CatchUpPolicy) as [CatchUpPolicy, ...CatchUpPolicy[]]).optional(),
    catchUpLimit: z.number().int().min(0).max(10_000).optional(),
  })
  .strict();

/** A schedule validated at the boundary, its definition (if given) checked as submit checks it. */
export interface ParsedSchedule {
  readonly id: string;
  readonly cron: string;
  readonly timezone: string;
  readonly workflow: string | null;
  readonly definition: WorkflowDefinition | null;
  readonly kind: string | null;
  readonly input: unknown;
  readonly enabled: boolean;
  readonly overlap: OverlapPolicy;
  readonly catchUp: CatchUpPolicy;
  readonly catchUpLimit: number;
}

const subject = 'schedule';

/**
 * Validates `client.schedule()`'s options: the id as text, the cron expression and time zone by
 * core's cron rules, exactly one of `workflow` and `kind`, the policies.
 *
 * @throws ValidationError naming the field and what was expected
 */
export function parseSchedule(value: unknown): ParsedSchedule {
  const result = scheduleSchema.safeParse(value ?? {});
  if (!result.success) {
    throw new ValidationError(
      subject,
      result.error.issues.map((issue) => ({
        path: issue.path.map(String).join('.') || '(options)',
        message: issue.message,
      })),
    );
  }
  const o = result.data;
  const { cron, timezone } = parseCronSchedule(o.cron, o.timezone ?? DefaultScheduleTimezone);
  if ((o.workflow === undefined) === (o.kind === undefined)) {
    throw new ValidationError(subject, [
      {
        path: o.workflow === undefined ? 'workflow' : 'kind',
        message:
          o.workflow === undefined
            ? 'expected exactly one of workflow (a built definition or a workflow name) and kind, got neither'
            : 'expected exactly one of workflow and kind, got both',
      },
    ]);
  }
  const definition =
    o.workflow !== undefined && typeof o.workflow !== 'string'
      ? parseWorkflowDefinition(o.workflow)
      : null;
  return {
    id: o.id,
    cron,
    timezone,
    workflow: definition ? definition.name : typeof o.workflow === 'string' ? o.workflow : null,
    definition,
    kind: o.kind ?? null,
    input: o.input,
    enabled: o.enabled ?? true,
    overlap: o.overlap ?? DefaultOverlapPolicy,
    catchUp: o.catchUp ?? DefaultCatchUpPolicy,
    catchUpLimit: o.catchUpLimit ?? DefaultCatchUpLimit,
  };
}

/** Validates a schedule id given to a command or a read. */
export function parseScheduleId(value: unknown): string {
  const result = textValue('a schedule id', { maxLength: MaxScheduleIdLength }).safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(subject, [
    { path: 'id', message: result.error.issues[0]?.message ?? 'invalid' },
  ]);
}

/** Validates a backfill range. */
export function parseBackfillRange(value: unknown): BackfillRange {
  const range = (value ?? {}) as Partial<BackfillRange>;
  const issues = [];
  for (const key of ['from', 'to'] as const) {
    const d = range[key];
    if (!(d instanceof Date) || Number.isNaN(d.getTime())) {
      issues.push({ path: key, message: `expected a valid Date, got ${String(d)}` });
    }
  }
  if (issues.length === 0 && range.from!.getTime() >= range.to!.getTime()) {
    issues.push({ path: 'to', message: 'expected a time after from' });
  }
  if (issues.length > 0) throw new ValidationError('backfill', issues);
  return { from: range.from!, to: range.to! };
}

/** Validates `listScheduleFires`'s limit. */
export function parseFiresLimit(options: ListScheduleFiresOptions | undefined): number {
  const limit = options?.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
    throw new ValidationError('schedule fires query', [
      { path: 'limit', message: `expected an integer from 1 to 10000, got ${String(limit)}` },
    ]);
  }
  return limit;
}
