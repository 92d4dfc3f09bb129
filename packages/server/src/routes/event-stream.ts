import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { Api } from '../http/api.js';
import type { ServerContext } from '../http/context.js';
import type { ChangeNotice } from '../live/notification-hub.js';

/** How often an idle stream sends a comment, so proxies do not close it. */
const KeepAliveMs = 15_000;

/** Notices held for one stream before they are folded into a single resync. */
const MaxQueued = 100;

/**
 * `GET /api/events/stream`: server-sent events fed by the database's notifications. Each `change`
 * event says what moved (steps of a kind became available, runs ended, steps were cancelled);
 * the dashboard reloads the page it shows. When the server cannot listen it sends one
 * `unavailable` event and closes, and the dashboard polls instead.
 */
export function eventStreamRoutes(api: Api, ctx: ServerContext): void {
  api.route(
    {
      method: 'get',
      path: '/api/events/stream',
      operationId: 'streamChanges',
      tag: 'server',
      summary: 'Server-sent events: `change` whenever the database announces one',
      description:
        'Events: `ready` once listening; `change` with `{ type, ... }` (`steps-available`, ' +
        '`runs-ended`, `steps-cancelled`, `resync`); `unavailable` when the server cannot listen.',
      answers: {
        200: { description: 'The event stream', content: { 'text/event-stream': z.string() } },
      },
    },
    (_input, c) =>
      streamSSE(c, async (stream) => {
        const queue: ChangeNotice[] = [];
        let wake: (() => void) | undefined;
        let leave: (() => void) | undefined;
        try {
          leave = await ctx.hub.join((notice) => {
            // A slow reader gets one resync instead of an unbounded backlog: it reloads anyway.
            if (queue.length >= MaxQueued) queue.splice(0, queue.length, { type: 'resync' });
            else queue.push(notice);
            wake?.();
          });
        } catch {
          await stream.writeSSE({ event: 'unavailable', data: '{}' });
          return;
        }
        stream.onAbort(() => {
          leave?.();
          wake?.();
        });
        await stream.writeSSE({ event: 'ready', data: '{}' });
        while (!stream.aborted && !stream.closed) {
          const notice = queue.shift();
          if (notice) {
            await stream.writeSSE({ event: 'change', data: JSON.stringify(notice) });
            continue;
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, KeepAliveMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
          if (queue.length === 0 && !stream.aborted) await stream.write(': keep-alive\n\n');
        }
        leave();
      }),
  );
}
