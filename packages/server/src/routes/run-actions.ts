import type { Client } from '@cyclone/client';
import type { Api } from '../http/api.js';
import type { ServerContext } from '../http/context.js';
import { moveAnswer, runAnswer, signalReceipt } from '../http/response-schemas.js';
import {
  nodeParams,
  retryBody,
  runParams,
  signalParams,
  signalPayload,
  signalQuery,
  transitionBody,
} from '../http/schemas.js';
import type { NodeMoveTarget } from '@cyclone/core';

/** An action on a run without a body, and what its route says of it. */
interface RunAction {
  readonly name: string;
  readonly operationId: string;
  readonly summary: string;
  readonly act: (client: Client, runId: string) => Promise<void>;
}

const actions: readonly RunAction[] = [
  {
    name: 'cancel',
    operationId: 'cancelRun',
    summary: 'Cancels a running or paused run and its open steps',
    act: (client, runId) => client.cancel(runId),
  },
  {
    name: 'retry-all',
    operationId: 'retryAllNodes',
    summary: "Retries every discarded node of a run (a failed run's discards)",
    act: (client, runId) => client.retryAll(runId),
  },
  {
    name: 'pause',
    operationId: 'pauseRun',
    summary: 'Pauses a run: no step starts until it is resumed',
    act: (client, runId) => client.run(runId).pause(),
  },
  {
    name: 'resume',
    operationId: 'resumeRun',
    summary: 'Resumes a paused run',
    act: (client, runId) => client.run(runId).resume(),
  },
];

/** What every action answers. */
const afterAction = { 200: { description: 'The run as it is after the action', body: runAnswer } };

/**
 * The operator's actions on one run: `POST /api/runs/:id/cancel|retry|retry-all|pause|resume`,
 * `POST /api/runs/:id/nodes/:node/transition` and `POST /api/runs/:id/signals/:name`. A refused action answers 409 with the rule's reason
 * (see http-errors.ts) and changed nothing.
 */
export function runActionRoutes(api: Api, ctx: ServerContext): void {
  const { client } = ctx;

  for (const { name, operationId, summary, act } of actions) {
    api.route(
      {
        method: 'post',
        path: `/api/runs/{id}/${name}`,
        operationId,
        tag: 'run actions',
        summary,
        params: runParams,
        answers: afterAction,
        errors: [404, 409, 503],
      },
      async ({ params }) => {
        await act(client, params.id);
        return { status: 200, body: { run: await client.getRun(params.id) } };
      },
    );
  }

  api.route(
    {
      method: 'post',
      path: '/api/runs/{id}/retry',
      operationId: 'retryNode',
      tag: 'run actions',
      summary: 'Retries a discarded node (by name or step id)',
      params: runParams,
      body: retryBody,
      answers: afterAction,
      errors: [400, 404, 409, 503],
    },
    async ({ params, body }) => {
      await client.retry(params.id, body.node);
      return { status: 200, body: { run: await client.getRun(params.id) } };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/runs/{id}/nodes/{node}/transition',
      operationId: 'transitionNode',
      tag: 'run actions',
      summary: 'Moves a node to completed, discarded or cancelled by hand',
      description:
        'Without `force`, only a move the transition table makes by itself is applied; a refusal ' +
        "answers 409 with the rule's `reason` (`terminal`, `invalid-entry`, `duplicate`) and code " +
        '`ALREADY_TERMINAL` (a terminal run) or `TRANSITION_REFUSED`. With `force: true` the move is ' +
        'applied and its event records `forced: true` and the reason. The run goes on as if the ' +
        'node had got there by itself. The same move twice within a second is refused as `duplicate`.',
      params: nodeParams,
      body: transitionBody,
      answers: { 200: { description: 'The move and the run afterwards', body: moveAnswer } },
      errors: [400, 404, 409, 503],
    },
    async ({ params, body }) => {
      const move = await client.forceStep(params.id, params.node, {
        to: body.to as NodeMoveTarget,
        reason: body.reason,
        force: body.force ?? false,
        ...(body.output === undefined ? {} : { output: body.output }),
      });
      return { status: 200, body: { move, run: await client.getRun(params.id) } };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/runs/{id}/signals/{name}',
      operationId: 'signalRun',
      tag: 'run actions',
      summary: 'Sends a signal to a run; the body is its payload (any JSON, or none)',
      description:
        'The first node waiting for the name consumes it, or the run keeps it until one does. ' +
        'The same `id` twice is delivered once.',
      params: signalParams,
      query: signalQuery,
      body: signalPayload,
      answers: { 200: { description: "The signal's receipt", body: signalReceipt } },
      errors: [400, 404, 409, 503],
    },
    async ({ params, query, body }) => {
      const receipt = await client.signal(
        params.id,
        params.name,
        body,
        query.id === undefined ? undefined : { id: query.id },
      );
      return { status: 200, body: receipt };
    },
  );
}
