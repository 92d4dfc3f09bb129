import type { BackoffPolicy } from '@cyclone/core';
import type { Tables } from '../../db/tables.js';
import type { StepRecord } from '../../schema/rows.js';
import { claimChange } from '../events/claim-event.js';
import { sqlConstant } from '../events/record-events.js';
import { changeParams, singleFrom, type ChangeParams } from '../transitions/change-params.js';
import { workflowStepsOfRun } from '../../db/steps-of-run.js';

/**
 * The one state a step is claimed from (`available`), written into the claim statements as a
 * literal so that they match the partial claim indexes (`WHERE state = 'available'`).
 */
export const ClaimedFromState = singleFrom(claimChange);

/** The parameters a claim statement binds from core's `available -> running` by `claim`. */
export interface ClaimChangeParams extends ChangeParams {
  /** The claimant, recorded on the step (`claimed_by`), which tells the claim's event. */
  workerId: string;
}

/** {@link ClaimChangeParams} for a claimant. */
export function claimChangeParams(workerId: string): ClaimChangeParams {
  return { ...changeParams(claimChange), workerId };
}

/** A claimed step with its handler's inputs. */
export type ClaimedStepRow = Pick<
  StepRecord,
  | 'id'
  | 'run_id'
  | 'node'
  | 'node_type'
  | 'attempts'
  | 'max_attempts'
  | 'reclaims'
  | 'timeout_ms'
  | 'item'
  | 'item_index'
> & {
  kind: string;
  backoff: BackoffPolicy | null;
  claim_token: string;
  /** The lease's end, in epoch milliseconds. */
  lease_expires_ms: number;
  workflow: string;
  input: unknown;
  deps: Record<string, unknown> | null;
  trace_context: Record<string, string> | null;
  queue_wait_ms: number;
  /** Whether the run is a standalone job (no workflow definition). */
  standalone: boolean;
};

/**
 * A fresh claim token, as SQL: 64 random bits drawn once per statement (the first three groups of
 * a random UUID) and a number of the events' sequence in the last 64 bits. The sequence never
 * gives a number twice, so no two claims share a token, and a writer that does not hold a claim
 * cannot guess its random part. One random UUID per row (`gen_random_uuid()` reads OpenSSL's
 * generator) was 3 % of the server's CPU in a drain of no-op jobs. Postgres reads the last 16 hex
 * digits as the fourth and fifth groups (a hyphen may follow any group of four digits, or none).
 */
function claimTokenSql(t: Pick<Tables, 'eventIds'>): string {
  return `(left((SELECT gen_random_uuid())::text, 19) || lpad(to_hex(nextval(${t.eventIds})), 16, '0'))::uuid`;
}

/**
 * The SQL a claim statement sets on each step it claims, besides the state: a fresh claim token
 * (the fence of every later write), the claimant, a lease, the start, and the id of the claim's
 * `step_started` event, which the row tells from now on (`cyclone_history`). The claimant and the
 * lease (parameters) are read through scalar subqueries, as every value of a statement on runs and
 * steps is, so that the statement keeps its generic plan (decision 420).
 */
export function claimColumns(
  t: Pick<Tables, 'eventIds'>,
  workerId: string,
  leaseMs: string,
): string {
  // The start is the moment of the update, as a stored event's time is the moment of its insert:
  // now() is the transaction's start, which may come before the commit of a change this claim
  // sees (a retry or snooze whose event time is later than the step's new `scheduled_at`), and
  // the step's history would then start its next attempt before the event that led to it.
  return `claim_token = ${claimTokenSql(t)}, claimed_by = (SELECT ${workerId}::text),
      lease_expires_at = now() + (SELECT ${leaseMs}::bigint) * interval '1 millisecond',
      started_at = clock_timestamp(), started_event_id = nextval(${t.eventIds})`;
}

/**
 * Most steps one claim takes of a kind, whatever its limit: far more than a worker asks for at
 * once (its free slots plus a local queue of at most 500), and few enough for the planner to read
 * a kind's claimable steps in index order however many are waiting.
 */
export const MaxClaimPerKind = 10_000;

/**
 * The claimable steps of one kind, in claim order, each locked (`FOR UPDATE SKIP LOCKED`, so
 * concurrent claims never wait on each other nor take the same row; with `locking: 'none'` read
 * without a lock, for a caller that fences its update itself): those with a priority above
 * the default first, highest first, then the default's (0), then those below it, each oldest first
 * (decision 252). Each part is one ordered walk of its range of the claim index. The default's
 * range ends at now(), so its steps scheduled later are never read; in the others, a priority's
 * steps scheduled later are passed over on the way to the next priority. Yields `id`, `priority`,
 * `scheduled_at` and `concurrency_key` of at most `limit` rows a part (and at most {@link MaxClaimPerKind}); the caller orders and cuts
 * them.
 *
 * With `defaultFrom`, an SQL expression of a `timestamptz`, the default's part starts there
 * (`scheduled_at >= defaultFrom`; `-infinity` for the start): a claim that remembers where its
 * last one began passes over the dead index entries of the steps claimed before it, which a long
 * transaction keeps vacuum from removing (`ClaimPositions`, decision 335). The other parts always
 * walk from their start: a step of a higher priority enqueued later must still come first.
 */
export function claimableSteps(
  t: Pick<Tables, 'stepsHot'>,
  kind: string,
  limit: string,
  locking: 'skip-locked' | 'none' = 'skip-locked',
  defaultFrom?: string,
): string {
  const available = sqlConstant(ClaimedFromState);
  const lock = locking === 'skip-locked' ? '\n    FOR UPDATE SKIP LOCKED' : '';
  // Each part is a subquery of its own: a locking clause may not stand in a UNION's member. The
  // inner LIMIT is a constant, so the planner never takes a part for a large share of the kind's
  // steps (a limit it cannot see counts as a tenth of the rows: at a backlog of a million, a plan
  // costly enough to be compiled by JIT at every claim); the outer one is the claim's own, and
  // rows are locked only as they are read, so no more than it are locked.
  const part = (where: string, order: string) => `(SELECT * FROM (
    SELECT id, priority, scheduled_at, concurrency_key FROM ${t.stepsHot}
    WHERE state = ${available} AND kind = ${kind} AND scheduled_at <= now() AND ${where}
    ORDER BY ${order}
    LIMIT ${MaxClaimPerKind}${lock}) AS part
    LIMIT ${limit})`;
  const order = 'priority DESC NULLS LAST, scheduled_at';
  return [
    part('priority > 0', order),
    part(
      defaultFrom === undefined
        ? 'priority = 0'
        : `priority = 0 AND scheduled_at >= ${defaultFrom}`,
      order,
    ),
    part('priority < 0', order),
  ].join('\n    UNION ALL\n    ');
}

/** The columns of a claimed step's row (see {@link claimedRows}), in the order they come. */
const claimedRowNames = [
  'id',
  'run_id',
  'node',
  'node_type',
  'kind',
  'attempts',
  'max_attempts',
  'reclaims',
  'timeout_ms',
  'backoff',
  'claim_token',
  'lease_expires_ms',
  'item',
  'item_index',
  'workflow',
  'input',
  'trace_context',
  'queue_wait_ms',
  'deps',
  'standalone',
] as const;

/** The columns of a claimed step's row taken from `source` (the CTE of {@link claimedRows}). */
export function claimedRowColumns(source: string): string {
  return claimedRowNames.map((name) => `${source}.${name}`).join(', ');
}

/** The ORDER BY of claimed rows taken from `source`: in claim order, the worker starts them so. */
export function claimOrder(source: string): string {
  return `ORDER BY ${source}.claim_priority DESC, ${source}.claim_scheduled_at`;
}

/**
 * A SELECT of each step of a claim statement's `claimed` CTE with its handler's inputs (the run's
 * input and trace context, upstream outputs) and how long it waited, in one round trip; a CTE of
 * its own, from which the statement's end takes {@link claimedRowColumns} in {@link claimOrder}.
 * The lease comes as epoch milliseconds and the order's columns stay in the database: the driver
 * parses no timestamp a worker never reads.
 */
export function claimedRows(t: Pick<Tables, 'stepsHot' | 'runsHot'>): string {
  return `SELECT c.id, c.run_id, c.node, c.node_type, c.kind, c.attempts, c.max_attempts, c.reclaims,
       c.timeout_ms, c.backoff, c.claim_token,
       (extract(epoch FROM c.lease_expires_at) * 1000)::float8 AS lease_expires_ms,
       c.item, c.item_index, r.workflow, r.input, r.trace_context,
       c.priority AS claim_priority, c.scheduled_at AS claim_scheduled_at,
       -- How long the step waited, claimable, for a worker: on the database's clock.
       (extract(epoch FROM now() - c.scheduled_at) * 1000)::float8 AS queue_wait_ms,
       CASE WHEN cardinality(c.depends_on) = 0 THEN NULL ELSE (
         SELECT jsonb_object_agg(d.node, d.output) FROM ${t.stepsHot} d
         WHERE ${workflowStepsOfRun('d', 'c.run_id')} AND d.node = ANY(c.depends_on) AND d.item_index IS NULL
       ) END AS deps,
       r.definition_hash IS NULL AS standalone
FROM claimed c JOIN ${t.runsHot} r ON r.id = c.run_id`;
}

/** The columns a claim statement's `claimed` CTE returns, for {@link claimedRows}. */
export const ClaimedColumns = `s.id, s.run_id, s.node, s.node_type, s.kind, s.attempts, s.max_attempts,
            s.reclaims, s.timeout_ms, s.backoff, s.claim_token, s.lease_expires_at, s.item,
            s.item_index, s.depends_on, s.scheduled_at, s.concurrency_key, s.priority`;
