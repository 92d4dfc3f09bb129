/**
 * The small part of the Standard Schema specification (https://standardschema.dev, v1) that
 * Cyclone uses to type and validate a workflow's input and its nodes' outputs. zod, valibot,
 * arktype and other libraries implement it, so Cyclone needs none of them at run time: it only
 * calls `schema['~standard'].validate(value)`.
 *
 * @packageDocumentation
 */

/** A schema of any library that implements Standard Schema v1. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

/** The `~standard` property of a {@link StandardSchemaV1}. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (
    value: unknown,
  ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  /** Standard JSON Schema v1: present when the library can describe the schema as JSON Schema. */
  readonly jsonSchema?: {
    readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  };
}

/** What a Standard Schema's `validate` returns: the (possibly transformed) value, or issues. */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaIssue> };

/** One problem a Standard Schema reports. */
export interface StandardSchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** The type a value has before a schema's validation (what a caller passes). */
export type SchemaInput<S> = S extends StandardSchemaV1<infer I, unknown> ? I : unknown;

/** The type a schema's validation produces (what a handler sees). */
export type SchemaOutput<S> = S extends StandardSchemaV1<unknown, infer O> ? O : unknown;

/** One key of a path into a value: an object property or an array index. */
export type PathKey = string | number;

/** A schema's issue as Cyclone reports it: the path as a list of keys, and the message. */
export interface SchemaIssue {
  /** Where the problem is, from the validated value's root, e.g. `['items', 0, 'sku']`; `[]` for the root. */
  readonly path: readonly PathKey[];
  readonly message: string;
}

/** What validating a value against a schema gave: the value to use, or the issues. */
export type SchemaCheck =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly issues: readonly SchemaIssue[] };

/** Whether a value looks like a Standard Schema v1 (has `~standard.validate`). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}

/** The vendor name `typed()` declarations carry: nothing to check at run time. */
export const TypeOnlyVendor = 'cyclone.typed';

/**
 * A type-only declaration for a workflow's `input` or a node's `output`, where no schema library
 * is wanted: TypeScript checks it, and nothing is checked at run time.
 *
 * @example
 * ```ts
 * workflow('order', { input: typed<{ orderId: string }>() })
 *   .task('load', 'orders.load', { output: typed<{ total: number }>() });
 * ```
 */
export function typed<T>(): StandardSchemaV1<T, T> {
  return typeOnly as StandardSchemaV1<T, T>;
}

const typeOnly: StandardSchemaV1 = Object.freeze({
  '~standard': Object.freeze({
    version: 1 as const,
    vendor: TypeOnlyVendor,
    validate: (value: unknown) => ({ value }),
  }),
});

/** Whether a schema is a {@link typed} declaration, which checks nothing at run time. */
export function isTypeOnly(schema: StandardSchemaV1): boolean {
  return schema['~standard'].vendor === TypeOnlyVendor;
}

/**
 * Validates a value against a Standard Schema: its (possibly transformed) value, or its issues
 * with each path as a list of keys. A schema that throws is reported as one issue at the root.
 */
export async function checkSchema(schema: StandardSchemaV1, value: unknown): Promise<SchemaCheck> {
  let result: StandardSchemaResult<unknown>;
  try {
    result = await schema['~standard'].validate(value);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, issues: [{ path: [], message: `the schema threw: ${message}` }] };
  }
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, issues: result.issues.map(toSchemaIssue) };
}

function toSchemaIssue(issue: StandardSchemaIssue): SchemaIssue {
  const path = (issue.path ?? []).map((segment) => {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    return typeof key === 'number' ? key : String(key);
  });
  return { path, message: issue.message };
}

/** A path as text: `items[0].sku`; the root is `(root)`. */
export function formatPath(path: readonly PathKey[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`))
    .join('');
}

/**
 * The JSON Schema of what a schema accepts, when its library describes it (Standard JSON Schema,
 * which zod 4 implements); undefined otherwise, or when the library cannot describe this schema.
 */
export function inputJsonSchema(schema: StandardSchemaV1): Record<string, unknown> | undefined {
  const describe = schema['~standard'].jsonSchema;
  if (describe === undefined || typeof describe.input !== 'function') return undefined;
  try {
    return describe.input({ target: 'draft-2020-12' });
  } catch {
    return undefined;
  }
}
