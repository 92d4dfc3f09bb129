/**
 * Turning whatever a handler threw into text Postgres can store and an operator can read. A handler
 * may throw anything: an `Error` whose message holds `\u0000` (which a Postgres `text` column
 * refuses), an unpaired UTF-16 surrogate, a ten-megabyte message, `Object.create(null)` (which
 * `String()` cannot convert), an object whose `message` getter throws, a BigInt or a symbol. Every
 * function here is total: it never throws, whatever it is given.
 *
 * @packageDocumentation
 */

/**
 * Largest error text stored on a step (its `error` column and its run's), in bytes of UTF-8. A
 * longer message is cut and marked, e.g. `... [truncated 9.9 MB]`.
 */
export const ErrorTextBytes = 8 * 1024;

/** Largest stack stored on a step (its `panic_stack` column), in bytes of UTF-8; cut and marked like the error text. */
export const PanicStackBytes = 32 * 1024;

/** Room kept for the truncation marker, which never takes more than this. */
const MarkerBytes = 40;

const encoder = new TextEncoder();

/**
 * Text that Postgres can store in a `text` column: each `\u0000` becomes the six visible characters
 * `\u0000` (Postgres refuses the character itself), and each unpaired UTF-16 surrogate becomes
 * U+FFFD (it has no UTF-8 form). Other text is returned unchanged.
 */
export function toStorableText(text: string): string {
  const escaped = text.includes('\u0000') ? text.replaceAll('\u0000', '\\u0000') : text;
  return escaped.replace(LoneSurrogate, '\uFFFD');
}

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LoneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` cut to at most `maxBytes` bytes of UTF-8, never inside a character. A cut text ends with
 * a marker saying how much was cut: `... [truncated 9.9 MB]`. Text that fits is returned unchanged.
 *
 * @param maxBytes - at least 64, so that the marker fits with some of the text
 */
export function truncateText(text: string, maxBytes: number): string {
  const limit = Math.max(64, Math.floor(maxBytes));
  // A UTF-16 code unit takes at most 3 bytes of UTF-8: short text needs no encoding to be known to fit.
  if (text.length * 3 <= limit) return text;
  const bytes = encoder.encode(text).length;
  if (bytes <= limit) return text;
  const kept = new Uint8Array(limit - MarkerBytes);
  const { read, written } = encoder.encodeInto(text, kept);
  return `${text.slice(0, read)}... [truncated ${formatBytes(bytes - written)}]`;
}

/** A byte count for people: `512 bytes`, `9.9 KB`, `9.9 MB` (decimal units). */
export function formatBytes(bytes: number): string {
  if (bytes < 1_000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${(bytes / 1_000).toFixed(1)} KB`;
  if (bytes < 1_000_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${(bytes / 1_000_000_000).toFixed(1)} GB`;
}

/**
 * A string for any value, never throwing: strings as they are, BigInt as `10n`, symbols as
 * `Symbol(description)`, objects by their own `toString` when they have a working one, else as
 * JSON, else as `[object <Tag>]`, else `[a value that cannot be shown as text]`. The result is
 * not yet storable or capped (see {@link toStorableText} and {@link truncateText}).
 */
export function safeString(value: unknown): string {
  try {
    switch (typeof value) {
      case 'string':
        return value;
      case 'bigint':
        return `${value.toString()}n`;
      case 'symbol':
        return value.toString();
      case 'function':
        return `[function ${safeName(value)}]`;
      case 'object':
        if (value === null) return 'null';
        return objectText(value);
      default:
        return String(value);
    }
  } catch {
    return Unprintable;
  }
}

const Unprintable = '[a value that cannot be shown as text]';

/** What `attempt` returns when it returns a string; undefined when it throws or returns no string. */
function tryText(attempt: () => unknown): string | undefined {
  try {
    const text = attempt();
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

function objectText(value: object): string {
  for (const attempt of [
    // The object's own toString, if it has a working one; that is the point of trying it.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    () => String(value),
    () => JSON.stringify(value),
    () => Object.prototype.toString.call(value),
  ]) {
    const text = tryText(attempt);
    if (text !== undefined) return text;
  }
  return Unprintable;
}

function safeName(value: { name?: unknown }): string {
  try {
    return typeof value.name === 'string' && value.name !== '' ? value.name : 'anonymous';
  } catch {
    return 'anonymous';
  }
}

/** What is recorded of a thrown value: see {@link describeThrown}. */
export interface ThrownDescription {
  /** The error's class name (`TypeError`, `PermanentError`), or the type of a thrown non-error (`string`, `bigint`). */
  readonly name: string;
  /** Its string or numeric `code` property (a Node or database error code), when it has one. */
  readonly code: string | undefined;
  /** The message (or, for a non-error, the value as text): storable, at most `messageBytes`. */
  readonly message: string;
  /** The stack of an error, storable, at most `stackBytes`; null for a non-error or an error without one. */
  readonly stack: string | null;
}

/** Limits of {@link describeThrown}. */
export interface DescribeThrownOptions {
  /** @defaultValue {@link ErrorTextBytes} */
  readonly messageBytes?: number;
  /** @defaultValue {@link PanicStackBytes} */
  readonly stackBytes?: number;
}

/**
 * Reads what Cyclone records of a thrown value, guarding every property access and conversion
 * (getters and proxies may throw), and returns text that Postgres can store, capped to the limits.
 * Never throws.
 *
 * @example
 * ```ts
 * describeThrown(new Error('a\u0000b')).message; // 'a\\u0000b'
 * describeThrown(10n).message; // '10n'
 * ```
 */
export function describeThrown(
  thrown: unknown,
  options: DescribeThrownOptions = {},
): ThrownDescription {
  const messageBytes = options.messageBytes ?? ErrorTextBytes;
  const stackBytes = options.stackBytes ?? PanicStackBytes;
  const name = thrownName(thrown);
  const message = thrownMessage(thrown);
  const stack = thrownStack(thrown);
  const code = isObject(thrown) ? read(thrown, 'code') : undefined;
  return {
    name: truncateText(toStorableText(name), 256),
    code:
      typeof code === 'string' || typeof code === 'number'
        ? truncateText(toStorableText(String(code)), 256)
        : undefined,
    message: truncateText(toStorableText(message), messageBytes),
    stack: stack === undefined ? null : truncateText(toStorableText(stack), stackBytes),
  };
}

/**
 * The class name of a thrown error (`TypeError`), or the type of a thrown non-error (`string`,
 * `bigint`, `null`). Never throws; the text is not yet storable or capped.
 */
export function thrownName(thrown: unknown): string {
  if (isErrorValue(thrown)) return errorName(thrown as object);
  return thrown === null ? 'null' : typeof thrown;
}

/**
 * The message of a thrown error, or a thrown non-error as text ({@link safeString}). Never throws;
 * the text is not yet storable or capped.
 */
export function thrownMessage(thrown: unknown): string {
  return isErrorValue(thrown)
    ? errorMessage(thrown as object, errorName(thrown as object))
    : safeString(thrown);
}

/** The stack of a thrown error, or undefined for a non-error, an error without one, or one that cannot be read. */
export function thrownStack(thrown: unknown): string | undefined {
  if (!isErrorValue(thrown)) return undefined;
  const stack = read(thrown, 'stack');
  return typeof stack === 'string' ? stack : undefined;
}

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/** `instanceof Error`, which a proxy's `getPrototypeOf` trap can make throw. */
function isErrorValue(value: unknown): boolean {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

/** A property, or undefined when reading it throws. */
function read(value: unknown, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function errorName(error: object): string {
  const name = read(error, 'name');
  if (typeof name === 'string' && name !== '') return name;
  const constructor = read(error, 'constructor');
  if (isObject(constructor)) return safeName(constructor);
  return 'Error';
}

function errorMessage(error: object, name: string): string {
  let message: unknown;
  try {
    message = (error as { message?: unknown }).message;
  } catch {
    return `[a ${name} whose message could not be read]`;
  }
  return typeof message === 'string' ? message : safeString(message);
}
