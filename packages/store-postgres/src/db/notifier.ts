import type pg from 'pg';
import { quoteIdent } from './tables.js';

/** Options of a {@link Notifier}. */
export interface NotifierOptions {
  readonly pool: pg.Pool;
  /** Channels to LISTEN on. */
  readonly channels: readonly string[];
  /** Called for every notification. */
  readonly onNotification: (channel: string, payload: string) => void;
  /**
   * Called after the listening connection was lost and is back (notifications in between may be
   * lost: callers poll once), and with the error when connecting failed.
   */
  readonly onReconnect?: () => void;
  readonly onError?: (error: unknown) => void;
}

/**
 * Holds one connection of the pool in LISTEN on a few channels and reconnects with backoff when
 * it drops. Notifications only make waiting shorter: everything that listens also polls.
 */
export class Notifier {
  private client: pg.PoolClient | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private readonly listeners = new Map<
    pg.PoolClient,
    { onNotification: (msg: pg.Notification) => void; onError: (error: unknown) => void }
  >();

  constructor(private readonly options: NotifierOptions) {}

  /** Connects and starts listening; resolves once the LISTEN commands are in place. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = await this.options.pool.connect();
    const onNotification = (msg: pg.Notification) =>
      this.options.onNotification(msg.channel, msg.payload ?? '');
    const onError = (error: unknown) => {
      this.options.onError?.(error);
      this.detach(client, true);
      this.scheduleReconnect();
    };
    client.on('notification', onNotification);
    client.on('error', onError);
    this.listeners.set(client, { onNotification, onError });
    try {
      for (const channel of this.options.channels)
        await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      this.detach(client, true);
      throw error;
    }
    this.client = client;
    this.failures = 0;
  }

  /** Removes this notifier's listeners from a client and gives it back to the pool, once. */
  private detach(client: pg.PoolClient, broken: boolean): void {
    const listeners = this.listeners.get(client);
    if (!listeners) return;
    this.listeners.delete(client);
    client.off('notification', listeners.onNotification);
    client.off('error', listeners.onError);
    if (this.client === client) this.client = undefined;
    client.release(broken);
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = Math.min(5_000, 100 * 2 ** this.failures++);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect().then(
        () => this.options.onReconnect?.(),
        (error: unknown) => {
          this.options.onError?.(error);
          this.scheduleReconnect();
        },
      );
    }, delay);
    this.retryTimer.unref();
  }

  /** Stops listening and gives the connection back. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.client;
    if (!client) return;
    let broken = false;
    try {
      await client.query('UNLISTEN *');
    } catch {
      broken = true;
    }
    this.detach(client, broken);
  }
}
