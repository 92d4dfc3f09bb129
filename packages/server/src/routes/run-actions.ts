import type { Client } from '@cyclone/client';
import { Hono } from 'hono';
import type { AppEnv, ServerContext } from '../http/context.js';
import { queryObject } from '../http/request-query.js';
import { retryBody, signalQuery } from '../http/schemas.js';
import { parseRequest, readJsonBody } from '../http/validation.js';

/** An action that answers with the run as it is after the action. */
type RunAction = (client: Client, runId: string, body: unknown) => Promise<void>;

const actions: Readonly<Record<string, RunAction>> = {
  cancel: (client, runId) => client.cancel(runId),
  retry: (client, runId, body) =>
    client.retry(runId, parseRequest(retryBody, body ?? {}, 'body').node),
  'retry-all': (client, runId) => client.retryAll(runId),
  pause: (client, runId) => client.run(runId).pause(),
  resume: (client, runId) => client.run(runId).resume(),
};

/**
 * The operator's actions on one run: `POST /api/runs/:id/cancel|retry|retry-all|pause|resume`
 * and `POST /api/runs/:id/signals/:name`. A refused action answers 409 with the rule's reason
 * (see http-errors.ts) and changed nothing.
 */
export function runActionRoutes(ctx: ServerContext): Hono<AppEnv> {
  const { client } = ctx;
  const app = new Hono<AppEnv>();

  for (const [name, act] of Object.entries(actions)) {
    app.post(`/:id/${name}`, async (c) => {
      const runId = c.req.param('id');
      await act(client, runId, await readJsonBody(c.req.raw));
      return c.json({ run: await client.getRun(runId) });
    });
  }

  app.post('/:id/signals/:name', async (c) => {
    const q = parseRequest(signalQuery, queryObject(c), 'query');
    const payload = await readJsonBody(c.req.raw);
    const receipt = await client.signal(
      c.req.param('id'),
      c.req.param('name'),
      payload,
      q.id === undefined ? undefined : { id: q.id },
    );
    return c.json(receipt);
  });

  return app;
}
