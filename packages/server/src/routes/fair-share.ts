import type { Client, FairShare } from '@cyclone/client';
import { NotFoundError } from '@cyclone/core';
import type { Api } from '../http/api.js';
import type { ServerContext } from '../http/context.js';
import { fairShareAnswer, fairShareList, fairShareRemoved } from '../http/response-schemas.js';
import { fairShareBody, limitParams } from '../http/schemas.js';

/** A kind's fair share as listed now. @throws NotFoundError when the kind is not under one */
async function fairShareOf(client: Client, kind: string): Promise<FairShare> {
  const found = (await client.listFairShares()).find((f) => f.kind === kind);
  if (!found) throw new NotFoundError('fair share', kind);
  return found;
}

/**
 * Fair share (decisions 370-379): `GET /api/fair-share` (every kind under fair share) and
 * `GET|PUT|DELETE /api/fair-share/:kind`. A `PUT` puts the kind under fair share or replaces its
 * weights and answers it as listed afterwards; a `GET` or `DELETE` of a kind not under fair share
 * answers 404.
 */
export function fairShareRoutes(api: Api, ctx: ServerContext): void {
  const { client } = ctx;

  api.route(
    {
      method: 'get',
      path: '/api/fair-share',
      operationId: 'listFairShares',
      tag: 'limits',
      summary: 'Every kind under fair share, with its weights and keys with claimable steps',
      answers: { 200: { description: 'The kinds under fair share', body: fairShareList } },
      errors: [503],
    },
    async () => ({ status: 200, body: { fairShares: await client.listFairShares() } }),
  );

  api.route(
    {
      method: 'get',
      path: '/api/fair-share/{kind}',
      operationId: 'getFairShare',
      tag: 'limits',
      summary: "A kind's fair share, with its keys that have claimable steps",
      params: limitParams,
      answers: { 200: { description: 'The fair share', body: fairShareAnswer } },
      errors: [400, 404, 503],
    },
    async ({ params }) => ({
      status: 200,
      body: { fairShare: await fairShareOf(client, params.kind) },
    }),
  );

  api.route(
    {
      method: 'put',
      path: '/api/fair-share/{kind}',
      operationId: 'setFairShare',
      tag: 'limits',
      summary: 'Puts a kind under fair share, or replaces its weights',
      description:
        'When several concurrency keys have claimable steps of the kind, claims take the keys in turn, each up to its weight a turn. Priority still orders first; caps and rate limits still hold. Obeyed by every worker at its next claim.',
      params: limitParams,
      body: fairShareBody,
      answers: { 200: { description: 'The fair share as set', body: fairShareAnswer } },
      errors: [400, 503],
    },
    async ({ params, body }) => {
      await client.setFairShare({
        kind: params.kind,
        // Checked by the client, which names the key in its 400.
        ...(body.weights === undefined ? {} : { weights: body.weights as Record<string, number> }),
      });
      return { status: 200, body: { fairShare: await fairShareOf(client, params.kind) } };
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/api/fair-share/{kind}',
      operationId: 'removeFairShare',
      tag: 'limits',
      summary: 'Takes a kind out of fair share: its steps are claimed oldest first again',
      params: limitParams,
      answers: { 200: { description: 'The fair share was removed', body: fairShareRemoved } },
      errors: [400, 404, 503],
    },
    async ({ params }) => {
      if (!(await client.removeFairShare(params.kind))) {
        throw new NotFoundError('fair share', params.kind);
      }
      return { status: 200, body: { kind: params.kind, removed: 'fair-share' as const } };
    },
  );
}
