/**
 * A standalone job kind's declaration: its kind, and optionally the schemas of its arguments and
 * its output. `client.enqueue(declaration, args)` is typed and validated by it, and a handler
 * registered against it (`jobHandler` in the worker) sees `ctx.input` typed and must return the
 * output, checked by the worker like a node's. `client.enqueue('kind', args)` stays as it was.
 *
 * @packageDocumentation
 */
import { NamePattern } from './definition-types.js';
import { ValidationError, type ValidationIssue } from './errors.js';
import {
  checkSchema,
  isStandardSchema,
  isTypeOnly,
  type SchemaInput,
  type SchemaOutput,
  type StandardSchemaV1,
} from './standard-schema.js';

/**
 * The types a job declaration carries: `input` is what its handler sees (the schema's output),
 * `args` what `enqueue` accepts (the schema's input), `output` what its handler returns.
 */
export interface JobTypes<
  Kind extends string = string,
  Input = unknown,
  Output = unknown,
  Args = Input,
> {
  readonly kind: Kind;
  readonly input: Input;
  readonly args: Args;
  readonly output: Output;
}

/**
 * The key of the property that carries a declaration's {@link JobTypes}. The property never
 * exists at run time: it is declared optional, and nothing ever sets it.
 */
export const jobTypes: unique symbol = Symbol('cyclone.jobTypes');

/** A standalone job kind with its schemas: what {@link job} returns. */
export interface JobDeclaration<
  Kind extends string = string,
  Input = unknown,
  Output = unknown,
  Args = Input,
> {
  /** The handler kind; the job's run and its one step are named after it. */
  readonly kind: Kind;
  /** The arguments' schema: `enqueue` validates against it and stores its value. */
  readonly input: StandardSchemaV1 | undefined;
  /** The output's schema: the worker checks a handler's output against it. */
  readonly output: StandardSchemaV1 | undefined;
  readonly [jobTypes]?: JobTypes<Kind, Input, Output, Args>;
}

/** What {@link job} takes besides the kind. */
export interface JobOptions<
  I extends StandardSchemaV1 | undefined,
  O extends StandardSchemaV1 | undefined,
> {
  /** A Standard Schema (zod, valibot, arktype, ...) or `typed<T>()` of the arguments. */
  readonly input?: I;
  /** A Standard Schema or `typed<T>()` of the handler's output. */
  readonly output?: O;
}

type OutputOfSchema<S> = S extends StandardSchemaV1 ? SchemaOutput<S> : unknown;
type InputOfSchema<S> = S extends StandardSchemaV1 ? SchemaInput<S> : unknown;

/**
 * Declares a standalone job kind with the schemas of its arguments and output. Declare it where
 * both the code that enqueues and the worker import it.
 *
 * @example
 * ```ts
 * export const sendEmail = job('emails.send', {
 *   input: z.object({ to: z.email(), subject: z.string() }),
 *   output: typed<{ messageId: string }>(),
 * });
 * await client.enqueue(sendEmail, { to: 'a@example.com', subject: 'Hi' }); // typed and validated
 * new Worker({ connectionString, handlers: jobHandler(sendEmail, async (ctx) => send(ctx.input)) });
 * ```
 *
 * @throws ValidationError when the kind is not 1 to 128 letters, digits, or `_ . : -`, or a
 *   schema is not a Standard Schema
 */
export function job<
  const K extends string,
  I extends StandardSchemaV1 | undefined = undefined,
  O extends StandardSchemaV1 | undefined = undefined,
>(
  kind: K,
  options: JobOptions<I, O> = {},
): JobDeclaration<K, OutputOfSchema<I>, OutputOfSchema<O>, InputOfSchema<I>> {
  const issues: ValidationIssue[] = [];
  if (typeof kind !== 'string' || !NamePattern.test(kind)) {
    issues.push({
      path: 'kind',
      message: `expected 1 to 128 letters, digits, or _ . : -, got ${JSON.stringify(kind)}`,
    });
  }
  for (const key of ['input', 'output'] as const) {
    const schema = options[key] as unknown;
    if (schema !== undefined && !isStandardSchema(schema)) {
      issues.push({
        path: key,
        message: 'expected a Standard Schema (zod, valibot, ...) or typed<T>()',
      });
    }
  }
  if (issues.length > 0) throw new ValidationError('job declaration', issues);
  return Object.freeze({ kind, input: options.input, output: options.output });
}

/** Whether a value is a job declaration made by {@link job} (an object with a string `kind`). */
export function isJobDeclaration(value: unknown): value is JobDeclaration {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === 'string' &&
    'input' in value &&
    'output' in value
  );
}

/** The types of a job declaration. */
export type JobTypesOf<J> = J extends { readonly [jobTypes]?: infer T }
  ? T extends JobTypes
    ? T
    : JobTypes
  : JobTypes;

/** What `client.enqueue(declaration, args)` accepts as `args`. */
export type JobArgsOf<J> = JobTypesOf<J>['args'];

/** What a handler registered against the declaration sees as `ctx.input`. */
export type JobInputOf<J> = JobTypesOf<J>['input'];

/** What a handler registered against the declaration returns. */
export type JobOutputOf<J> = JobTypesOf<J>['output'];

/** What `client.result(runId)` gives for a job's run: its output under its kind. */
export type JobResultOf<J> = { readonly [K in JobTypesOf<J>['kind']]: JobOutputOf<J> };

/**
 * Validates a job's arguments against its declaration's input schema; returns the value to store
 * (the schema's, which may transform or default fields), or the arguments as given when it
 * declares none (or a `typed<T>()` one).
 *
 * @throws ValidationError whose issues carry each schema issue's path as a list of keys
 */
export async function checkJobArgs(
  declaration: JobDeclaration,
  args: unknown,
  subject = `arguments of job ${JSON.stringify(declaration.kind)}`,
): Promise<unknown> {
  const schema = declaration.input;
  if (schema === undefined || isTypeOnly(schema)) return args;
  const checked = await checkSchema(schema, args);
  if (!checked.ok) throw new ValidationError(subject, checked.issues);
  return checked.value;
}

/** The issues of a job's output against its declaration's output schema; empty when it fits. */
export async function jobOutputIssues(
  declaration: JobDeclaration,
  output: unknown,
): Promise<readonly ValidationIssue[]> {
  const schema = declaration.output;
  if (schema === undefined || isTypeOnly(schema)) return [];
  const checked = await checkSchema(schema, output);
  return checked.ok ? [] : checked.issues;
}
