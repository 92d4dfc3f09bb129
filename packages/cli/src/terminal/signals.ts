/** The signals that ask a long-running command to stop: Ctrl-C, and what process managers send. */
const shutdownSignals = ['SIGINT', 'SIGTERM'] as const;

/** A pending request to shut down, fulfilled by the first SIGINT or SIGTERM. */
export interface ShutdownRequest {
  /** Resolves with the signal's name when the first one arrives. */
  readonly signalled: Promise<NodeJS.Signals>;
  /** Aborted when the first signal arrives. */
  readonly signal: AbortSignal;
  /** Removes the handlers (the default behaviour of the signals returns). */
  dispose(): void;
}

/**
 * Handles SIGINT and SIGTERM for a long-running command: the first asks for a graceful shutdown;
 * the second calls `force` (by default: exit at once with 130), for when the graceful path hangs.
 */
export function awaitShutdown(
  force: (signal: NodeJS.Signals) => void = () => process.exit(130),
): ShutdownRequest {
  const controller = new AbortController();
  let resolve!: (signal: NodeJS.Signals) => void;
  const signalled = new Promise<NodeJS.Signals>((r) => (resolve = r));
  const handler = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      force(signal);
      return;
    }
    controller.abort();
    resolve(signal);
  };
  for (const name of shutdownSignals) process.on(name, handler);
  return {
    signalled,
    signal: controller.signal,
    dispose: () => {
      for (const name of shutdownSignals) process.off(name, handler);
    },
  };
}
