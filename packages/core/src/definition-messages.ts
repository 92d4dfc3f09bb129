import { WORKFLOW_NODE_TYPES } from './definition-types.js';

/** Messages shared by the definition schema, its rules and the parser ("expected ..., got ..."). */

/**
 * How a value is shown in an issue message: short, and `nothing` for a missing value.
 *
 * @internal
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * A zod error function that writes `<expectation>, got <value>`.
 *
 * @internal
 */
export function expected(expectation: string): (issue: { input?: unknown }) => string {
  return (issue) => `${expectation}, got ${describeValue(issue.input)}`;
}

export function nodeTypeMessage(input: unknown): string {
  const type =
    typeof input === 'object' && input !== null ? (input as { type?: unknown }).type : input;
  return `expected a node type, one of ${WORKFLOW_NODE_TYPES.join(', ')}, got ${describeValue(type)}`;
}

export function firstRepeat(input: unknown): unknown {
  if (!Array.isArray(input)) return undefined;
  return input.find((item, index) => input.indexOf(item) !== index);
}
