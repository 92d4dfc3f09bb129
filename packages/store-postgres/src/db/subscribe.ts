import type pg from 'pg';
import type { StoreListener, Subscription } from '../contract/notifications.js';
import { Channels } from './channels.js';
import { Notifier } from './notifier.js';

/** Listens for the database's wake-ups on one connection of the pool (see {@link Notifier}). */
export async function subscribe(pool: pg.Pool, listener: StoreListener): Promise<Subscription> {
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
  return { close: () => notifier.stop() };
}
