import { z } from 'zod';
import { type ValidationIssue, ValidationError } from './errors.js';

/**
 * What a string that Cyclone stores in a Postgres `text` column (or inside `jsonb`) may be:
 * well-formed Unicode without U+0000. Postgres refuses `\u0000` in text (error 22021), and the
 * driver encodes an unpaired UTF-16 surrogate as U+FFFD, so `'k\uD800'` and `'k\uFFFD'` would be
 * stored as the same value: two different keys silently becoming one. Both are refused at the
 * boundary instead, with a `ValidationError` that names the value.
 *
 * Lengths are counted in Unicode characters (code points), as Postgres `char_length` counts them,
 * so a character outside the Basic Multilingual Plane (an emoji) counts once, not twice.
 *
 * @packageDocumentation
 */

/** Why a string is not well-formed text, and where. */
export interface IllFormedText {
  /** `nul`: the string contains U+0000; `lone_surrogate`: a UTF-16 surrogate without its pair. */
  readonly problem: 'nul' | 'lone_surrogate';
  /** The UTF-16 index of the first offending code unit. */
  readonly index: number;
}

/**
 * The first reason `text` cannot be stored as Postgres text unchanged, or `undefined` when it can:
 * a U+0000 or an unpaired UTF-16 surrogate.
 */
export function findIllFormedText(text: string): IllFormedText | undefined {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0) return { problem: 'nul', index: i };
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return { problem: 'lone_surrogate', index: i };
    }
  }
  return undefined;
}

/** The number of Unicode characters (code points) in `text`; an unpaired surrogate counts as one. */
export function characterLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    length++;
  }
  return length;
}

/** Options of {@link textValue} and {@link textValueIssue}. */
export interface TextValueOptions {
  /** Most Unicode characters (code points) the value may have. */
  readonly maxLength: number;
  /**
   * Fewest Unicode characters the value must have.
   * @defaultValue 1 (an empty string is refused)
   */
  readonly minLength?: number;
}

/**
 * What a well-formed text value is, in the words every message uses, e.g. `a non-empty string
 * without U+0000 or lone surrogates, at most 512 characters`.
 */
export function textValueExpectation(options: TextValueOptions): string {
  const min = options.minLength ?? 1;
  const text = 'string without U+0000 or lone surrogates';
  if (min === 0) return `a ${text}, at most ${options.maxLength} characters`;
  if (min === 1) return `a non-empty ${text}, at most ${options.maxLength} characters`;
  return `a ${text}, ${min} to ${options.maxLength} characters`;
}

/**
 * Why `value` is not an acceptable text value, or `undefined` when it is. The message says what
 * was wrong and what was expected, e.g. `contains U+0000 at index 3, expected an idempotency key:
 * a non-empty string without U+0000 or lone surrogates, at most 512 characters`.
 *
 * @param what names the value in the message, e.g. `an idempotency key`; optional
 */
export function textValueIssue(
  value: unknown,
  options: TextValueOptions,
  what?: string,
): string | undefined {
  const expectation = `expected ${what === undefined ? '' : `${what}: `}${textValueExpectation(options)}`;
  if (typeof value !== 'string') return `${expectation}, got ${describe(value)}`;
  const bad = findIllFormedText(value);
  if (bad?.problem === 'nul') return `contains U+0000 at index ${bad.index}, ${expectation}`;
  if (bad?.problem === 'lone_surrogate') {
    const unit = value.charCodeAt(bad.index).toString(16).toUpperCase();
    return `contains a lone surrogate U+${unit} at index ${bad.index}, ${expectation}`;
  }
  const length = characterLength(value);
  if (length < (options.minLength ?? 1)) {
    return `${length === 0 ? 'is empty' : `has ${length} characters`}, ${expectation}`;
  }
  if (length > options.maxLength) return `has ${length} characters, ${expectation}`;
  return undefined;
}

/**
 * A zod schema for a string that reaches a Postgres text column: well-formed Unicode, no U+0000,
 * `minLength` (default 1) to `maxLength` characters. `what` names the value in the message, e.g.
 * `an idempotency key`. Refine it further (`.regex(...)`) for narrower formats; those checks run
 * after this one.
 *
 * @example
 * ```ts
 * const options = z.object({
 *   idempotencyKey: textValue('an idempotency key', { maxLength: 512 }).optional(),
 * });
 * ```
 */
export function textValue(what: string, options: TextValueOptions): z.ZodString {
  return z
    .string({ error: (issue) => textValueIssue(issue.input, options, what) })
    .check((context) => {
      const message = textValueIssue(context.value, options, what);
      if (message !== undefined) {
        context.issues.push({ code: 'custom', message, input: context.value, abort: true });
      }
    });
}

/**
 * Checks one text value outside a zod schema and returns it.
 *
 * @param subject what is being validated, the error's subject, e.g. `signal`
 * @param path where the value sits, the issue's path, e.g. `id`
 * @param options the length bounds, and `what` names the value in the message
 * @throws ValidationError naming `path` and saying what was expected
 */
export function assertTextValue(
  value: unknown,
  subject: string,
  path: string,
  options: TextValueOptions & { readonly what?: string },
): string {
  const message = textValueIssue(value, options, options.what);
  if (message === undefined) return value as string;
  const issue: ValidationIssue = { path, message };
  throw new ValidationError(subject, [issue]);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  return typeof value;
}
