/** Callbacks of {@link StoreNotifications.subscribe}; give only the ones you need. */
export interface StoreListener {
  /** Steps of `kind` may have become claimable. */
  readonly stepsAvailable?: (kind: string) => void;
  /** These runs reached a terminal state. */
  readonly runsEnded?: (runIds: readonly string[]) => void;
  /**
   * These running steps were ended by an operator or a scanner (cancel, run deadline): a worker
   * holding one aborts its handler now rather than at its next heartbeat.
   */
  readonly stepsCancelled?: (stepIds: readonly string[]) => void;
  /** The listening connection was lost and is back: notifications in between may be lost, so poll once. */
  readonly reconnected?: () => void;
  /** The listening connection failed; it reconnects with backoff by itself. */
  readonly error?: (error: unknown) => void;
}

/** An open subscription; `close()` stops it and gives its connection back. */
export interface Subscription {
  /**
   * Whether a connection LISTENs for this subscription. False when the store has none to LISTEN
   * on (a transaction-mode pooler without `listenConnectionString`): no callback is ever called,
   * and the subscriber's polling is its only wake-up.
   */
  readonly listening: boolean;
  close(): Promise<void>;
}

/**
 * Wake-ups pushed by the database. They only make waiting shorter: everything that subscribes also
 * polls, so a lost notification delays work and never loses it.
 */
export interface StoreNotifications {
  /**
   * Starts listening; resolves once the subscription is in place (at once, with `listening:
   * false`, when the store has no connection to LISTEN on).
   */
  subscribe(listener: StoreListener): Promise<Subscription>;
}
