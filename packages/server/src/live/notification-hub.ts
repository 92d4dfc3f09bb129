import type { Client } from '@cyclone/client';
import type { Subscription } from '@cyclone/store-postgres';
import type { Logger } from 'pino';

/** One change the database announced, as the event stream sends it. */
export type ChangeNotice =
  | { readonly type: 'steps-available'; readonly kind: string }
  | { readonly type: 'runs-ended'; readonly runIds: readonly string[] }
  | { readonly type: 'steps-cancelled'; readonly count: number }
  /** Notifications may have been lost while the listening connection was down: reload. */
  | { readonly type: 'resync' };

/** A receiver of notices. */
export type NoticeListener = (notice: ChangeNotice) => void;

/**
 * Shares one LISTEN connection among every open event stream: the first stream opens the store's
 * subscription, later ones join it, and `close()` gives the connection back. Streams are hints,
 * not a log: the dashboard reloads what it shows on each notice, and polls when the stream fails.
 */
export class NotificationHub {
  private readonly listeners = new Set<NoticeListener>();
  private subscription: Promise<Subscription> | undefined;
  private closed = false;
  private toldNotListening = false;

  constructor(
    private readonly client: Client,
    private readonly logger: Logger,
  ) {}

  /**
   * Adds a listener; resolves once the subscription is listening, with the function that removes
   * it. @throws what the store threw when it could not subscribe, or an error saying the store has
   * no connection to LISTEN on (a transaction-mode pooler without `listenConnectionString`): the
   * stream then says it is unavailable and the dashboard polls
   */
  async join(listener: NoticeListener): Promise<() => void> {
    const subscription = await this.subscribe();
    if (!subscription.listening) {
      if (!this.toldNotListening) {
        this.toldNotListening = true;
        this.logger.info(
          'event stream unavailable: no LISTEN connection (a transaction-mode pooler without ' +
            'listenConnectionString); the dashboard polls',
        );
      }
      throw new Error('the store has no connection to LISTEN on');
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private subscribe(): Promise<Subscription> {
    if (this.subscription) return this.subscription;
    const pending = this.client.store.subscribe({
      stepsAvailable: (kind) => this.emit({ type: 'steps-available', kind }),
      runsEnded: (runIds) => this.emit({ type: 'runs-ended', runIds }),
      stepsCancelled: (stepIds) => this.emit({ type: 'steps-cancelled', count: stepIds.length }),
      reconnected: () => this.emit({ type: 'resync' }),
      error: (error) =>
        this.logger.warn({ err: describe(error) }, 'event stream: listening connection failed'),
    });
    this.subscription = pending;
    // A failed subscribe is retried by the next stream that opens.
    pending.catch(() => {
      if (this.subscription === pending) this.subscription = undefined;
    });
    return pending;
  }

  private emit(notice: ChangeNotice): void {
    for (const listener of this.listeners) listener(notice);
  }

  /** Stops listening. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    const subscription = await this.subscription?.catch(() => undefined);
    await subscription?.close();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
