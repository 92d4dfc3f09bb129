import {
  ValidationError,
  type JobDeclaration,
  type JobInputOf,
  type JobOutputOf,
} from '@cyclone/core';
import type { HandlersByKind } from './node-handlers.js';
import type { Handler, StepContext } from './step-context.js';

/** The handler of a declared job kind: it sees its arguments typed and must return its output. */
export type JobHandler<J> = (
  ctx: StepContext<JobInputOf<J>>,
) => Promise<JobOutputOf<J>> | JobOutputOf<J>;

/** `Symbol.for`, so that two installed copies of the worker recognise each other's handlers. */
const JOB = Symbol.for('@cyclone/worker/job-declaration');

/** The declaration a handler made by {@link jobHandler} was registered against; undefined otherwise. */
export function jobOf(handler: Handler): JobDeclaration | undefined {
  return (handler as unknown as Record<symbol, JobDeclaration | undefined>)[JOB];
}

/**
 * A handler registered against a job declaration (`job(kind, { input, output })` from core),
 * typed from it: `ctx.input` is the arguments' schema's output, and the handler must return the
 * declared output. Returns `{ [kind]: handler }` for the worker's `handlers` option (alone, or in
 * its list of maps); it is the kind's plain handler. The output of a standalone job of the kind is
 * checked against the declaration's output schema on every completion path, as a node's is: a
 * mismatch fails the attempt as permanent with the issues.
 *
 * @example
 * ```ts
 * const sendEmail = job('emails.send', { input: z.object({ to: z.email() }), output: typed<{ id: string }>() });
 * new Worker({ connectionString, handlers: [jobHandler(sendEmail, async (ctx) => send(ctx.input.to))] });
 * ```
 *
 * @throws ValidationError when `handler` is not a function
 */
export function jobHandler<const J extends JobDeclaration>(
  declaration: J,
  handler: JobHandler<J>,
): HandlersByKind {
  if (typeof handler !== 'function') {
    throw new ValidationError(`handler of job ${JSON.stringify(declaration.kind)}`, [
      { path: 'handler', message: `expected a function, got ${typeof handler}` },
    ]);
  }
  const registered: Handler = (ctx) => handler(ctx);
  Object.defineProperty(registered, JOB, { value: declaration, enumerable: false });
  return { [declaration.kind]: registered };
}
