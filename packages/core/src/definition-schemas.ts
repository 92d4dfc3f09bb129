/**
 * The schemas a built definition was declared with: its input schema, its nodes' output schemas
 * and the definitions of the child workflows it named by value. They ride on the definition in a
 * non-enumerable symbol property, so the definition's JSON, its hash and what is stored are those
 * of the same workflow declared without them; a definition read back from JSON has none.
 *
 * @packageDocumentation
 */
import { type WorkflowDefinition } from './definition-types.js';
import { ValidationError, type ValidationIssue } from './errors.js';
import { checkSchema, isTypeOnly, type StandardSchemaV1 } from './standard-schema.js';

/** What a definition declared besides its data. */
export interface DefinitionSchemas {
  /** The run input's schema. */
  readonly input?: StandardSchemaV1;
  /** Output schemas by node name (a fan-out's: each item task's output). */
  readonly outputs: ReadonlyMap<string, StandardSchemaV1>;
  /** The child workflows given by definition, by child node name. */
  readonly children: ReadonlyMap<string, WorkflowDefinition>;
}

/** `Symbol.for`, so that two installed copies of core read each other's schemas. */
const SCHEMAS = Symbol.for('@cyclone/core/definition-schemas');

/**
 * Attaches schemas to a definition that is not frozen yet, as a non-enumerable property that
 * JSON, the hash and `Object.keys` do not see.
 *
 * @internal
 */
export function attachSchemas(definition: object, schemas: DefinitionSchemas): void {
  Object.defineProperty(definition, SCHEMAS, { value: schemas, enumerable: false });
}

/** The schemas a definition was built with; undefined for one that declared none, or came from JSON. */
export function schemasOf(definition: WorkflowDefinition): DefinitionSchemas | undefined {
  return (definition as unknown as Record<symbol, DefinitionSchemas | undefined>)[SCHEMAS];
}

/** Whether a definition declares a schema that checks something at run time for its input. */
function checksInput(
  definition: WorkflowDefinition,
  seen = new Set<WorkflowDefinition>(),
): boolean {
  if (seen.has(definition)) return false;
  seen.add(definition);
  const schemas = schemasOf(definition);
  if (schemas === undefined) return false;
  if (schemas.input !== undefined && !isTypeOnly(schemas.input)) return true;
  return [...schemas.children.values()].some((child) => checksInput(child, seen));
}

/**
 * Validates a run input against the definition's input schema, and against the input schema of
 * every child workflow it names by definition (a child run's input is its parent's input).
 * Returns the value to store: what the definition's own schema produced (a schema may transform
 * or default fields), or the input as given when it declares none.
 *
 * @param subject - what the error names, e.g. `input of workflow "order"`
 * @throws ValidationError whose issues carry each schema issue's path as a list of keys
 */
export async function checkRunInput(
  definition: WorkflowDefinition,
  input: unknown,
  subject = `input of workflow ${JSON.stringify(definition.name)}`,
): Promise<unknown> {
  if (!checksInput(definition)) return input;
  const schemas = schemasOf(definition)!;
  let value = input;
  const issues: ValidationIssue[] = [];
  if (schemas.input !== undefined) {
    const checked = await checkSchema(schemas.input, input);
    if (!checked.ok) throw new ValidationError(subject, checked.issues);
    value = checked.value;
  }
  for (const [node, child] of schemas.children) {
    try {
      await checkRunInput(child, value, subject);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(
        ...error.issues.map((issue) => ({
          path: issue.path,
          message: `${issue.message} (child workflow ${child.name} of node ${node})`,
        })),
      );
    }
  }
  if (issues.length > 0) throw new ValidationError(subject, issues);
  return value;
}

/**
 * The issues of a node's output against the node's declared output schema (a fan-out's: each
 * item's), or an empty list when it declares none or the output fits.
 */
export async function nodeOutputIssues(
  definition: WorkflowDefinition,
  node: string,
  output: unknown,
): Promise<readonly ValidationIssue[]> {
  const schema = schemasOf(definition)?.outputs.get(node);
  if (schema === undefined || isTypeOnly(schema)) return [];
  const checked = await checkSchema(schema, output);
  return checked.ok ? [] : checked.issues;
}
