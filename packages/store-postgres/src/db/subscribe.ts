import type pg from 'pg';
import type { StoreListener, Subscription } from '../contract/notifications.js';
import { Channels } from './channels.js';
import { Notifier } from './notifier.js';

/** A subscription on which nothing listens: its subscriber polls. */
const notListening: Subscription = { listening: false, close: () => Promise.resolve() };

/**
 * Listens for the database's wake-ups on one connection of `pool` (see {@link Notifier}). With no
 * pool (a transaction-mode pooler and no separate URL to LISTEN on), nothing listens: a LISTEN
 * through such a pooler would hold on to whichever server session ran it, and its notifications
 * would reach no client.
 */
export async function subscribe(
  pool: pg.Pool | undefined,
  listener: StoreListener,
): Promise<Subscription> {
  if (!pool) return notListening;
  const channels: string[] = [];
  if (listener.stepsAvailable) channels.push(Channels.stepsAvailable);
  if (listener.runsEnded) channels.push(Channels.runsEnded);
  if (listener.stepsCancelled) channels.push(Channels.stepsCancelled);
  const notifier = new Notifier({
    pool,
    channels,
    onNotification: (channel, payload) => {
      if (channel === Channels.stepsAvailable) listener.stepsAvailable?.(payload);
      else if (channel === Channels.runsEnded) listener.runsEnded?.(payload.split(','));
      else if (channel === Channels.stepsCancelled) listener.stepsCancelled?.(payload.split(','));
    },
    ...(listener.reconnected ? { onReconnect: listener.reconnected } : {}),
    ...(listener.error ? { onError: listener.error } : {}),
  });
  await notifier.start();
  return { listening: true, close: () => notifier.stop() };
}
