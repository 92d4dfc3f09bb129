import { NodeType } from '@cyclone/core';

/** A signal a wait node consumed. */
export interface ConsumedSignal {
  readonly name: string;
  readonly payload: unknown;
}

/**
 * The output a signal wait completes with when it got what it waited for (api.md): `waitSignal`
 * `{ payload, timedOut }`, `waitAny` `{ signal, payload, timedOut }`, `waitN`
 * `{ payloads, timedOut }` with the payloads in arrival order.
 */
export function consumedOutput(
  nodeType: string,
  gathered: readonly unknown[],
  last: ConsumedSignal,
): unknown {
  switch (nodeType) {
    case NodeType.WaitAny:
      return { signal: last.name, payload: last.payload, timedOut: false };
    case NodeType.WaitN:
      return { payloads: gathered, timedOut: false };
    default:
      return { payload: last.payload, timedOut: false };
  }
}

/** The output a signal wait completes with when its `maxWait` lapsed (api.md). */
export function lapsedOutput(nodeType: string, gathered: readonly unknown[]): unknown {
  switch (nodeType) {
    case NodeType.WaitAny:
      return { signal: null, payload: null, timedOut: true };
    case NodeType.WaitN:
      return { payloads: gathered, timedOut: true };
    default:
      return { payload: null, timedOut: true };
  }
}

/** The output a timer completes with: when it fired, by the database clock. */
export function firedOutput(firedAt: Date): unknown {
  return { firedAt: firedAt.toISOString() };
}
