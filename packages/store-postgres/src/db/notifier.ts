import type pg from 'pg';
import { quoteIdent } from './tables.js';

/**
 * How often the listening connection is probed (`SELECT 1`); a probe not answered within the same
 * time marks the connection dead, and the notifier listens again on a new one. A connection whose
 * traffic is silently dropped (a NAT entry or a load balancer that forgot it) raises no error by
 * itself, so without the probe its notifications would stop for good.
 */
export const NotifierHealthCheckMs = 5_000;

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
  /** How often the listening connection is probed. @defaultValue {@link NotifierHealthCheckMs} */
  readonly healthCheckMs?: number;
}

/**
 * Holds one connection of the pool in LISTEN on a few channels and reconnects with backoff when
 * it drops, or when it stops answering the health probe. Notifications only make waiting
 * shorter: everything that listens also polls.
 */
export class Notifier {
  private client: pg.PoolClient | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private readonly listeners = new Map<
    pg.PoolClient,
    {
      onNotification: (msg: pg.Notification) => void;
      onError: (error: unknown) => void;
      probe: NodeJS.Timeout;
    }
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
    const healthCheckMs = this.options.healthCheckMs ?? NotifierHealthCheckMs;
    const probe = setInterval(() => this.probe(client, healthCheckMs, onError), healthCheckMs);
    probe.unref();
    this.listeners.set(client, { onNotification, onError, probe });
    try {
      for (const channel of this.options.channels)
        await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      this.detach(client, true);
      throw error;
    }
    if (this.stopped) {
      // stop() came while this reconnection was under way: give the connection back (closed, as
      // it still listens), or the pool's end() waits for it forever.
      this.detach(client, true);
      return;
    }
    this.client = client;
    this.failures = 0;
  }

  /**
   * Probes the listening connection: one `SELECT 1` at a time; no answer within `timeoutMs`, or
   * an error, counts as a lost connection.
   */
  private probing = new WeakSet<pg.PoolClient>();
  private probe(client: pg.PoolClient, timeoutMs: number, lost: (error: unknown) => void): void {
    if (this.probing.has(client) || !this.listeners.has(client)) return;
    this.probing.add(client);
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      if (this.listeners.has(client)) {
        lost(new Error(`the listening connection did not answer a probe within ${timeoutMs} ms`));
      }
    }, timeoutMs);
    timer.unref();
    client.query('SELECT 1').then(
      () => {
        settled = true;
        clearTimeout(timer);
        this.probing.delete(client);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        this.probing.delete(client);
        if (this.listeners.has(client)) lost(error);
      },
    );
  }

  /** Removes this notifier's listeners from a client and gives it back to the pool, once. */
  private detach(client: pg.PoolClient, broken: boolean): void {
    const listeners = this.listeners.get(client);
    if (!listeners) return;
    this.listeners.delete(client);
    clearInterval(listeners.probe);
    client.off('notification', listeners.onNotification);
    client.off('error', listeners.onError);
    if (this.client === client) this.client = undefined;
    // A broken connection may still report its end; nobody listens for it any more.
    if (broken) client.on('error', () => undefined);
    client.release(broken);
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = Math.min(5_000, 100 * 2 ** this.failures++);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect().then(
        () => {
          if (!this.stopped) this.options.onReconnect?.();
        },
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
