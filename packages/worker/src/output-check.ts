import {
  checkRunInput,
  encodePayload,
  jobOutputIssues,
  schemasOf,
  nodeOutputIssues,
  ValidationError,
  type JobDeclaration,
  type ValidationIssue,
  type WorkflowDefinition,
} from '@cyclone/core';
import type { ChildInputCheck, ClaimedStep } from '@cyclone/store-postgres';

/**
 * Checks a handler's output against its node's declared output schema, on every path a
 * completion is written by: a handler's return value (the executor), `ctx.transaction`'s result
 * and `ctx.completeWithin`'s output (the step's transaction), each before its completion is
 * written, so a step never completes with a value its schema refuses. A standalone job's output
 * is checked against its kind's declaration (`jobHandler`), a node's against its definition's.
 */
export class OutputCheck {
  /**
   * @param definitions - definitions whose nodes declare output schemas, by workflow name
   * @param jobs - job declarations with an output schema, by kind
   */
  constructor(
    private readonly definitions: ReadonlyMap<string, WorkflowDefinition>,
    private readonly jobs: ReadonlyMap<string, JobDeclaration> = new Map(),
  ) {}

  /** Whether any node or job kind this worker knows declares an output schema. */
  get active(): boolean {
    return this.definitions.size > 0 || this.jobs.size > 0;
  }

  /**
   * The error of an output its node's schema refuses: a `ValidationError`, which is permanent (an
   * output that does not fit is a bug in the handler, not a passing failure), naming the node and
   * carrying the schema's issues; undefined when it fits or the node declares no schema.
   */
  async refusal(step: ClaimedStep, output: unknown): Promise<ValidationError | undefined> {
    if (!this.active) return undefined;
    const issues = await this.issues(step, output);
    if (issues.length === 0) return undefined;
    if (step.standalone)
      return new ValidationError(`output of job ${JSON.stringify(step.kind)}`, issues);
    const item = step.itemIndex === null ? '' : ` item ${step.itemIndex}`;
    return new ValidationError(`output of node ${JSON.stringify(step.node)}${item}`, issues);
  }

  private async issues(step: ClaimedStep, output: unknown): Promise<readonly ValidationIssue[]> {
    if (step.standalone) {
      const declaration = this.jobs.get(step.kind);
      return declaration === undefined ? [] : jobOutputIssues(declaration, output);
    }
    const definition = this.definitions.get(step.workflow);
    return definition === undefined ? [] : nodeOutputIssues(definition, step.node, output);
  }

  /** @throws ValidationError when the output's node schema refuses it (see {@link refusal}) */
  async assertFits(step: ClaimedStep, output: unknown): Promise<void> {
    const error = await this.refusal(step, output);
    if (error !== undefined) throw error;
  }
}

/**
 * The store's `childInputCheck` for a worker's workflows: a child run of a workflow given with
 * an input schema has its input checked before a settlement of this worker starts it (the
 * refusal's message names each issue). Nothing when no workflow declares a schema.
 */
export function childInputCheckOf(workflows: readonly WorkflowDefinition[]): {
  childInputCheck?: ChildInputCheck;
} {
  const byName = new Map(
    workflows.filter((w) => schemasOf(w)?.input !== undefined).map((w) => [w.name, w]),
  );
  if (byName.size === 0) return {};
  return {
    childInputCheck: async (workflow, input) => {
      const definition = byName.get(workflow);
      if (definition === undefined) return undefined;
      try {
        await checkRunInput(
          definition,
          input,
          `input of child workflow ${JSON.stringify(workflow)}`,
        );
        return undefined;
      } catch (error) {
        if (error instanceof ValidationError) return error.message;
        throw error;
      }
    },
  };
}

/**
 * A handler's output as the JSON text to store (`undefined` as `null`).
 * @throws ValidationError when it is not JSON or larger than `maxOutputBytes`
 */
export function encodeOutput(
  output: unknown,
  step: { readonly node: string },
  options: { readonly maxOutputBytes: number },
): string {
  return encodePayload(output === undefined ? null : output, {
    maxBytes: options.maxOutputBytes,
    subject: `output of node "${step.node}"`,
    path: 'output',
  });
}
