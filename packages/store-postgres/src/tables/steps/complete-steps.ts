import { RunState, type StepChange } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { freedPlacesNotice } from './freed-places-notice.js';
import { notifyIdsInChunks } from '../../db/notify-ids.js';
import { isUuid } from '../../db/ids.js';
import { defineStatement } from '../../db/statement.js';
import { singleFrom } from '../transitions/change-params.js';
import { OpenRunStates } from '../transitions/terminal-states.js';
import { recordEvents } from '../events/record-events.js';
import { runCompleted } from '../events/run-row-events.js';
import { workflowStepsOfRun } from '../../db/steps-of-run.js';
import { promoteTask } from './promote-ready.js';

/**
 * A batch of completions and the changes they make, all from core's table: `complete*` the step's
 * own (`running -> completed` by `complete`, or a wait's, child's or fan-out's completion),
 * `runComplete*` the run's `-> completed` when its last open step completes, `promote*` a task
 * dependent's `pending -> available` by `promote`. {@link completionParams} gives every value but
 * the steps'.
 */
export interface CompleteStepsParams {
  /** The steps as a Postgres array literal (see {@link completionsInput}). */
  stepIds: string;
  /** Each step's claim token, the same way; NULL for a node no worker claimed. */
  claimTokens: string;
  /** A JSON array of the steps' outputs, in order. */
  outputs: string;
  /** The state the completing steps move to (`completed`). */
  completeToState: string;
  /** The states they may move from: the statement's fence. */
  completeFromStates: readonly string[];
  /** The completion's trigger, for the events of nodes no worker runs. */
  completeTrigger: string;
  /** The one state they move from, for the `from_state` of those events. */
  completeEventFrom: string;
  /** The type of each completed step's event (`step_completed`, `wait_lapsed`). */
  completeEventType: string;
  /**
   * Whether the completion is a handler's success, which ends an attempt (`attempts` + 1) and is
   * told by the step row rather than stored as an event; false for a wait, child or fan-out node,
   * which no worker runs and whose completion is stored.
   */
  countAttempt: boolean;
  /** The value of `timed_out` the completed steps get (a lapsed wait). */
  timedOut: boolean;
  /** The value of `cached` the completed steps get (a result cache hit). */
  cached: boolean;
  /**
   * Whether the rows name the runs this statement completed (`ended`): settlement needs them, a
   * worker does not, and for standalone jobs they are as many as the completions.
   */
  reportEnded: boolean;
  /** The state a run whose last open step completes moves to (`completed`). */
  runCompleteToState: string;
  /** The run states it may move from. */
  runCompleteFromStates: readonly string[];
  /** The state a task dependent whose last dependency completed moves to (`available`). */
  promoteToState: string;
  /** The states such a dependent may move from (`pending`). */
  promoteFromStates: readonly string[];
  /** The run state in which dependents are promoted (a paused run promotes nothing). */
  promotingRunState: string;
  /** Run states that are not terminal: a run in one of them may still need settling. */
  openRunStates: readonly string[];
}

/** How a batch completes: what {@link completionParams} needs besides core's table. */
export interface CompletionKind {
  /** The steps' change: `running -> completed` by `complete`, or a wait's, child's, fan-out's. */
  readonly change: StepChange;
  /** Their events' type (stored only for nodes no worker runs). */
  readonly eventType: string;
  /** A handler's success (see {@link CompleteStepsParams.countAttempt}). */
  readonly countAttempt: boolean;
  readonly timedOut: boolean;
  readonly cached: boolean;
  readonly reportEnded: boolean;
}

/**
 * Every parameter of the completion statement but the steps' ({@link completionsInput}), each
 * named here as the statement reads it: the completion's own change, then what happens after it
 * (the run's completion is core's `runCompleted`, a dependent's promotion `promoteTask`, made only
 * in a running run). `singleFrom` refuses a change with several from-states, whose events could
 * not name one.
 */
export function completionParams(
  kind: CompletionKind,
): Omit<CompleteStepsParams, 'stepIds' | 'claimTokens' | 'outputs'> {
  return {
    completeToState: kind.change.to,
    completeFromStates: kind.change.from,
    completeTrigger: kind.change.trigger,
    completeEventFrom: singleFrom(kind.change),
    completeEventType: kind.eventType,
    countAttempt: kind.countAttempt,
    timedOut: kind.timedOut,
    cached: kind.cached,
    reportEnded: kind.reportEnded,
    runCompleteToState: runCompleted.to,
    runCompleteFromStates: runCompleted.from,
    promoteToState: promoteTask.to,
    promoteFromStates: promoteTask.from,
    promotingRunState: RunState.Running,
    openRunStates: OpenRunStates,
  };
}

/**
 * `fenced`: a completion that was not accepted (`id` the step: its claim or state had moved on);
 * every other step of the batch completed. `settle`: a run marked for settlement; `ended`: a run
 * this statement completed (with `reportEnded`). Only the exceptions are named: a batch's usual
 * outcome, every step accepted, costs no row.
 */
export interface CompleteStepsRow {
  what: 'fenced' | 'settle' | 'ended' | 'notified';
  id: string | null;
}

/**
 * Whether a dependent `d` the completions reach (`h`, its hits) becomes claimable: a task, not
 * cached (a cached one stays pending for settlement's lookup), whose last dependencies these were,
 * in a run that promotes. Read on the row as locked by the update, so a concurrent change counts.
 */
const becomesReady = `d.deps_remaining = h.n AND d.node_type = 'task' AND d.cache_ttl_ms IS NULL
                            AND h.promoting`;

/**
 * Records a batch of completions in one statement (handler successes, and wait nodes that got
 * their signals, lapsed or fired, settled under their run's lock): each step is fenced by its
 * claim token and its state, its run's count of open steps drops, a run whose last open step this
 * was completes, task dependents whose last dependency this was become available (unless the run
 * is paused; each promotion's `step_ready` is told by the dependent's row, its event id and time),
 * and the events of the nodes no worker runs are written. The run rows are locked by their
 * update, after the steps; a writer that locks the other way round (cancel, pause) can deadlock
 * with it, which Postgres detects and the store answers by running the statement again. The run's
 * state used for the promotions is the one read under that lock, so a pause that committed first
 * is seen. Every parameter's value is given by {@link completionParams} and
 * {@link completionsInput}, in this file.
 *
 * A run with follow-up work this statement does not do (fan-out progress, a wait, timer, child or
 * fan-out node whose dependencies are met, a parent of a child run that ended) is written to the
 * settlement outbox in this same statement, so a crash before it is settled loses nothing: the
 * `settle-pending` scanner finds it there.
 */
const statement = defineStatement<CompleteStepsParams, CompleteStepsRow>(
  'complete-steps',
  (t, p) => `
WITH input AS (
  -- The lists side by side, a row for each position. By unnest, whose rows the planner counts as
  -- few (10) when it cannot see the array: then it probes the steps' key a row rather than read
  -- the whole table into a hash.
  SELECT c.id, c.token, (SELECT ${p.outputs}::jsonb) -> (c.ord::int - 1) AS output
  FROM unnest((SELECT ${p.stepIds}::uuid[]), (SELECT ${p.claimTokens}::uuid[]))
       WITH ORDINALITY AS c(id, token, ord)
), done AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.completeToState}::text), output = c.output,
      attempts = s.attempts + CASE WHEN (SELECT ${p.countAttempt}::boolean) THEN 1 ELSE 0 END,
      timed_out = (SELECT ${p.timedOut}::boolean), cached = (SELECT ${p.cached}::boolean), ended_at = now(),
      lease_expires_at = NULL,
      -- A handler's success is told by the row (cyclone_history): its event's id, no event row.
      completed_event_id = CASE WHEN (SELECT ${p.countAttempt}::boolean) THEN nextval(${t.eventIds})
                                ELSE s.completed_event_id END
  FROM input c
  -- By a join, one probe of the primary key a step (decision 420, as cheap as id = ANY(...) on
  -- one table). A wait node holds no claim: its token is null on both sides.
  WHERE s.id = c.id
    AND s.claim_token IS NOT DISTINCT FROM c.token
    AND s.state = ANY((SELECT ${p.completeFromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.node_type, s.kind, s.started_at, s.attempts, s.output,
            s.cache_key, s.cache_ttl_ms
), per_run AS (
  SELECT run_id, count(*)::int AS n, bool_or(node_type = 'item') AS has_items,
         min(started_at) AS first_started
  FROM done GROUP BY run_id
), run_upd AS (
  -- A standalone job (no definition) is a run of one step, the one completing here: its start is
  -- that step's, and it has no dependents to probe; neither needs another read of its steps.
  UPDATE ${t.runsHot} r
  SET open_steps = r.open_steps - p.n,
      started_at = coalesce(r.started_at,
                            CASE WHEN r.definition_hash IS NULL THEN p.first_started
                                 ELSE (SELECT min(x.started_at) FROM ${t.stepsHot} x
                                       WHERE ${workflowStepsOfRun('x', 'r.id')}) END),
      state = CASE WHEN r.open_steps = p.n AND r.state = ANY((SELECT ${p.runCompleteFromStates}::text[])::text[])
                   THEN (SELECT ${p.runCompleteToState}::text) ELSE r.state END,
      ended_at = CASE WHEN r.open_steps = p.n AND r.state = ANY((SELECT ${p.runCompleteFromStates}::text[])::text[])
                      THEN now() ELSE r.ended_at END
  FROM per_run p
  WHERE r.id = p.run_id
  RETURNING r.id, r.state, r.open_steps, r.parent_run_id, p.has_items, r.definition_hash
), dep_hits AS (
  -- The runs' ids are read once each (init plans), never by a join with run_upd: the planner
  -- takes a CTE for one row and rescans it for every dependent, a batch's runs times its
  -- dependents (200 x 200 rows, most of the statement's time). A batch of standalone jobs, which
  -- have no dependents, probes nothing. A dependent of a run not in the promoting state (paused)
  -- counts its dependency but stays pending.
  SELECT d.id, count(*)::int AS n,
         bool_and(done.run_id = ANY(ARRAY(SELECT id FROM run_upd
                                          WHERE state = (SELECT ${p.promotingRunState}::text))))
           AS promoting
  FROM done JOIN ${t.stepsHot} d ON ${workflowStepsOfRun('d', 'done.run_id')} AND done.node = ANY(d.depends_on)
  WHERE done.run_id = ANY(ARRAY(SELECT id FROM run_upd WHERE definition_hash IS NOT NULL))
    AND done.node_type <> 'item' AND d.item_index IS NULL
  GROUP BY d.id
), promoted AS (
  UPDATE ${t.stepsHot} d
  SET deps_remaining = d.deps_remaining - h.n,
      -- A task with a result cache stays pending: settlement looks its key up first.
      state = CASE WHEN ${becomesReady} THEN (SELECT ${p.promoteToState}::text) ELSE d.state END,
      scheduled_at = CASE WHEN ${becomesReady} THEN now() ELSE d.scheduled_at END,
      -- Its step_ready is told by the row (cyclone_history): the event's id and time, no event row.
      ready_event_id = CASE WHEN ${becomesReady} THEN nextval(${t.eventIds})
                            ELSE d.ready_event_id END,
      ready_at = CASE WHEN ${becomesReady} THEN clock_timestamp() ELSE d.ready_at END
  FROM dep_hits h
  WHERE d.id = h.id AND d.state = ANY((SELECT ${p.promoteFromStates}::text[])::text[])
  RETURNING d.id, d.run_id, d.node, d.kind, d.state, d.node_type, d.deps_remaining,
            d.cache_ttl_ms
), ended AS (
  SELECT id, parent_run_id FROM run_upd
  WHERE state = (SELECT ${p.runCompleteToState}::text) AND open_steps = 0
), settle AS (
  SELECT id FROM run_upd WHERE has_items AND state = ANY((SELECT ${p.openRunStates}::text[])::text[])
  UNION
  SELECT run_id FROM promoted
  WHERE deps_remaining = 0 AND (node_type <> 'task' OR cache_ttl_ms IS NOT NULL)
  UNION
  SELECT parent_run_id FROM ended WHERE parent_run_id IS NOT NULL
), marked AS (
  INSERT INTO ${t.settlements} (run_id)
  SELECT id FROM settle
  ON CONFLICT (run_id) DO NOTHING
), cache_filled AS (
  -- A handler's output of a cached step serves its kind's key until the ttl runs out; a later
  -- success of the same key replaces it. Outputs no handler produced (a hit, a forced move) never
  -- fill it.
  INSERT INTO ${t.cache} (kind, key, output, step_id, expires_at)
  SELECT DISTINCT ON (kind, cache_key) kind, cache_key, output, id,
         now() + cache_ttl_ms * interval '1 millisecond'
  FROM done
  WHERE (SELECT ${p.countAttempt}::boolean) AND cache_key IS NOT NULL AND cache_ttl_ms IS NOT NULL
  ON CONFLICT (kind, key) DO UPDATE
  SET output = excluded.output, step_id = excluded.step_id, created_at = now(),
      expires_at = excluded.expires_at
), events AS (
  ${recordEvents(t, {
    // Only nodes no worker runs store their completion (a wait's, a child's, a fan-out's); a
    // handler's success and a completed run (run_completed) are told by their rows.
    source: 'done',
    where: `NOT (SELECT ${p.countAttempt}::boolean)`,
    type: `(SELECT ${p.completeEventType}::text)`,
    from: `(SELECT ${p.completeEventFrom}::text)`,
    to: `(SELECT ${p.completeToState}::text)`,
    trigger: `(SELECT ${p.completeTrigger}::text)`,
  })}
), notify_steps AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM promoted
        WHERE state = (SELECT ${p.promoteToState}::text) AND kind IS NOT NULL) k
), notify_limited AS (
  ${freedPlacesNotice(t, 'done', true)}
), notify_runs AS (${notifyIdsInChunks(Channels.runsEnded, 'ended')}
)
SELECT 'fenced' AS what, i.id FROM input i WHERE i.id NOT IN (SELECT id FROM done)
UNION ALL SELECT 'settle', id FROM settle
UNION ALL SELECT 'ended', id FROM ended WHERE (SELECT ${p.reportEnded}::boolean)
UNION ALL SELECT 'notified', NULL FROM notify_steps
UNION ALL SELECT 'notified', NULL FROM notify_limited
UNION ALL SELECT 'notified', NULL FROM notify_runs
`,
);

/** Records handler successes in one statement (see the statement's comment). */
export function completeSteps(db: SqlRunner, p: CompleteStepsParams): Promise<CompleteStepsRow[]> {
  return db.rows(statement, p);
}

/** A step to complete: its id, the claim it holds (null: none), its output as JSON text. */
export interface CompletionInput {
  readonly stepId: string;
  readonly claimToken?: string | null;
  readonly outputJson: string;
}

/**
 * The three per-step values of {@link completeSteps}: the ids and tokens as array literals and
 * the outputs as one JSON array. Joined strings cost the driver far less than arrays it escapes
 * element by element, and the server parses three values however many steps there are (as the
 * job insert does, decision 285). Ids and tokens are checked to be UUIDs, so none can add an
 * element and shift the others; each output is JSON text already validated by its encoder.
 */
export function completionsInput(
  completions: readonly CompletionInput[],
): Pick<CompleteStepsParams, 'stepIds' | 'claimTokens' | 'outputs'> {
  let stepIds = '{';
  let claimTokens = '{';
  let outputs = '[';
  for (let i = 0; i < completions.length; i++) {
    const c = completions[i]!;
    const token = c.claimToken ?? null;
    if (!isUuid(c.stepId)) throw new TypeError(`completion ${i}: stepId is not a UUID`);
    if (token !== null && !isUuid(token)) {
      throw new TypeError(`completion ${i}: claimToken is not a UUID`);
    }
    const sep = i === 0 ? '' : ',';
    stepIds += sep + c.stepId;
    claimTokens += sep + (token ?? 'NULL');
    outputs += sep + c.outputJson;
  }
  return { stepIds: stepIds + '}', claimTokens: claimTokens + '}', outputs: outputs + ']' };
}

/** The steps of a batch that completed: all of them but those its rows name as fenced. */
export function acceptedCompletions(
  completions: readonly CompletionInput[],
  rows: readonly CompleteStepsRow[],
): Set<string> {
  const accepted = new Set<string>();
  for (const c of completions) accepted.add(c.stepId);
  for (const row of rows) if (row.what === 'fenced' && row.id) accepted.delete(row.id);
  return accepted;
}
