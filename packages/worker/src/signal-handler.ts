import { symbols, type Logger } from 'pino';

/** What signal handling drives: a graceful stop, and a way to cut it short. */
export interface SignalTarget {
  /** Stops gracefully (stop claiming, let handlers finish up to the timeout, release the rest). */
  stop(): Promise<void>;
  /** Ends the wait for handlers now: abort them and release what settles. */
  force(): void;
}

const HandledSignals = ['SIGTERM', 'SIGINT'] as const;
type HandledSignal = (typeof HandledSignals)[number];
const SignalNumbers: Record<HandledSignal, number> = { SIGINT: 2, SIGTERM: 15 };

/** After a second signal, the process exits after at most this long, even if the forced stop hangs. */
export const ForcedExitMs = 5_000;

/**
 * Installs SIGTERM and SIGINT handlers for a worker. The first signal stops it gracefully; once
 * stopped, the handlers are removed and, if nothing else listens for that signal, it is raised
 * again so the process ends as it would have without the worker. A second signal forces the
 * stop and exits with code 128 + the signal number.
 *
 * @returns a function that removes the handlers
 */
export function handleProcessSignals(target: SignalTarget, logger: Logger): () => void {
  let received: HandledSignal | undefined;
  let forced = false;
  const uninstall = (): void => {
    for (const signal of HandledSignals) process.off(signal, onSignal);
  };
  const onSignal = (signal: HandledSignal): void => {
    if (received === undefined) {
      received = signal;
      logger.info({ signal }, 'signal received: stopping gracefully; send it again to force');
      void target.stop().then(() => {
        if (forced) return;
        uninstall();
        if (process.listenerCount(signal) > 0) return;
        // The signal ends the process at once: write out the last log lines first.
        void flushed(logger).finally(() => process.kill(process.pid, signal));
      });
      return;
    }
    if (forced) return;
    forced = true;
    const code = 128 + SignalNumbers[signal];
    logger.warn({ signal }, 'second signal: aborting handlers, releasing what settles, exiting');
    setTimeout(() => process.exit(code), ForcedExitMs).unref();
    target.force();
    void target.stop().finally(() => flushed(logger).finally(() => process.exit(code)));
  };
  for (const signal of HandledSignals) process.on(signal, onSignal);
  return uninstall;
}

/** What {@link flushed} needs of a logger's destination: a stream it can end. */
interface EndableStream {
  end(): void;
  once(event: 'close' | 'finish', listener: () => void): unknown;
}

/**
 * Resolves once the logger has written out what it holds (at most a second later). The process
 * ends right after, so the destination is ended: pino's default destination writes stdout
 * asynchronously, and its `flush(cb)` answers while a line may still be in flight, which a signal
 * then loses; ending the stream waits for that write.
 */
function flushed(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1_000);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    try {
      const stream = (logger as unknown as Record<symbol, unknown>)[symbols.streamSym] as
        Partial<EndableStream> | undefined;
      if (stream && typeof stream.end === 'function' && typeof stream.once === 'function') {
        stream.once('close', done);
        stream.once('finish', done);
        stream.end();
      } else {
        logger.flush(done);
      }
    } catch {
      done();
    }
  });
}
