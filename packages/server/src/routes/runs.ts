import {
  NotFoundError,
  parseWorkflowDefinition,
  ValidationError,
  type RunState,
  type WorkflowDefinition,
} from '@cyclone/core';
import type { SubmitOptions } from '@cyclone/client';
import type { Api } from '../http/api.js';
import type { ServerContext } from '../http/context.js';
import {
  eventList,
  nodeExplanation,
  runPage,
  runWithSteps,
  submittedRun,
} from '../http/response-schemas.js';
import { eventsQuery, nodeParams, runParams, runsQuery, submitBody } from '../http/schemas.js';

/**
 * Reading runs and starting them: `GET /api/runs`, `GET /api/runs/:id` (with its steps),
 * `GET /api/runs/:id/events`, `GET /api/runs/:id/nodes/:node/explain` and `POST /api/runs`.
 */
export function runRoutes(api: Api, ctx: ServerContext): void {
  const { client } = ctx;

  api.route(
    {
      method: 'get',
      path: '/api/runs',
      operationId: 'listRuns',
      tag: 'runs',
      summary: 'Runs, newest first; follow nextCursor for the next page',
      query: runsQuery,
      answers: { 200: { description: 'A page of runs', body: runPage } },
      errors: [400, 503],
    },
    async ({ query: q }) => {
      const page = await client.listRuns({
        ...(q.state && q.state.length > 0 ? { states: q.state as RunState[] } : {}),
        ...(q.workflow === undefined ? {} : { workflow: q.workflow }),
        ...(q.idempotencyKey === undefined ? {} : { idempotencyKey: q.idempotencyKey }),
        ...(q.since === undefined ? {} : { createdAfter: q.since }),
        ...(q.until === undefined ? {} : { createdBefore: q.until }),
        ...(q.parent === undefined ? {} : { parentRunId: q.parent }),
        ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
        ...(q.limit === undefined ? {} : { limit: q.limit }),
      });
      return { status: 200, body: page };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/runs/{id}',
      operationId: 'getRun',
      tag: 'runs',
      summary: 'A run, with its child runs, and its steps',
      params: runParams,
      answers: { 200: { description: 'The run and its steps', body: runWithSteps } },
      errors: [404, 503],
    },
    async ({ params }) => {
      const run = await client.getRun(params.id);
      const steps = await client.listSteps(params.id);
      return { status: 200, body: { run, steps } };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/runs/{id}/events',
      operationId: 'listRunEvents',
      tag: 'runs',
      summary: "A run's history, in order (`run_submitted` is id 0)",
      params: runParams,
      query: eventsQuery,
      answers: { 200: { description: 'The events after `after`', body: eventList } },
      errors: [400, 404, 503],
    },
    async ({ params, query: q }) => {
      const events = await client.events(params.id, {
        ...(q.after === undefined ? {} : { after: q.after }),
        ...(q.limit === undefined ? {} : { limit: q.limit }),
      });
      return { status: 200, body: { events } };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/runs/{id}/nodes/{node}/explain',
      operationId: 'explainNode',
      tag: 'runs',
      summary: 'Why a node is not running, and what would move it',
      params: nodeParams,
      answers: { 200: { description: 'The explanation', body: nodeExplanation } },
      errors: [404, 503],
    },
    async ({ params }) => ({
      status: 200,
      body: await client.explain(params.id, params.node),
    }),
  );

  api.route(
    {
      method: 'post',
      path: '/api/runs',
      operationId: 'submitRun',
      tag: 'runs',
      summary: 'Submits a run of a workflow, by name',
      description:
        'A workflow the server was given (`workflows`) is submitted as given, its input checked ' +
        'against its input schema (a refusal answers 400 with the issues, each `path` a list of ' +
        'keys, and writes nothing); any other, the newest definition a worker, a scheduler or a ' +
        'client stored under the name. An idempotency key seen before answers 200 with that run ' +
        'and `created: false`.',
      body: submitBody,
      answers: {
        201: { description: 'The run was created', body: submittedRun },
        200: { description: 'A run with this idempotency key existed', body: submittedRun },
      },
      errors: [400, 404, 503],
    },
    async ({ body }) => {
      const definition =
        ctx.workflows.get(body.workflow) ?? (await storedDefinition(ctx, body.workflow));
      // The client validates the options' values (a duration's form, the key's length) and names them.
      const options = (body.options ?? {}) as SubmitOptions;
      const submitted = await client.submit(definition, body.input, options);
      return submitted.created
        ? { status: 201, body: submitted }
        : { status: 200, body: submitted };
    },
  );
}

/**
 * The newest definition stored under `name`, for a workflow the server was not given: it holds no
 * code of it, so there is no schema to check the input against.
 *
 * @throws NotFoundError when none is stored
 * @throws ValidationError naming `workflow` when the stored definition no longer builds
 */
async function storedDefinition(ctx: ServerContext, name: string): Promise<WorkflowDefinition> {
  const stored = await ctx.client.store.storedDefinition(name);
  if (stored === undefined) throw new NotFoundError('workflow', name);
  try {
    return parseWorkflowDefinition(stored);
  } catch (error) {
    throw new ValidationError('request body', [
      {
        path: 'workflow',
        message: `the stored definition of ${name} no longer builds: ${error instanceof Error ? error.message : String(error)}`,
      },
    ]);
  }
}
