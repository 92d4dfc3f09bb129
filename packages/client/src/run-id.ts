/**
 * A run id that carries, in types only, what its run's result is: `submit` returns one for a
 * typed definition, and `result` and `run(runId).result()` read the type back from it. At run
 * time it is the plain id text, and any string is a `RunId` (whose result is then untyped).
 */
export type RunId<Result = Record<string, unknown>> = string & {
  readonly [runResultType]?: Result;
};

/** The key of the types-only property of a {@link RunId}; no run id ever has it. */
export const runResultType: unique symbol = Symbol('cyclone.runResult');
