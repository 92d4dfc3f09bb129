import { type ValidationIssue, ValidationError } from './errors.js';
import { findIllFormedText } from './text-value.js';

/**
 * Turning a run input, job arguments, a signal payload or a step output into the JSON text Cyclone
 * stores in a `jsonb` column, refusing at the boundary what would otherwise fail in Postgres or be
 * silently changed by `JSON.stringify`.
 *
 * What is accepted: `null`, booleans, finite numbers, strings, arrays and plain objects (any realm,
 * or `Object.create(null)`), nested freely. Objects with a `toJSON` method are stored as what it
 * returns, exactly as `JSON.stringify` does, so a `Date` becomes its ISO string and a library value
 * that defines its JSON form (a decimal, a Temporal date) keeps it; what `toJSON` returns is checked
 * like any other value. An object property whose value is `undefined` is left out, as
 * `JSON.stringify` does, because TypeScript optional properties routinely hold `undefined`.
 *
 * What is rejected, each with the path of the offending value:
 * - `undefined` at the top level or inside an array, and holes in sparse arrays (JSON would write
 *   `null`, changing the array's meaning);
 * - functions and symbols anywhere (JSON would drop them without a word);
 * - BigInt (JSON throws), `NaN` and `±Infinity` (JSON would write `null`);
 * - an invalid `Date` (JSON would write `null`);
 * - class instances without `toJSON`, such as `Map`, `Set`, `RegExp`, `Error` or a boxed primitive
 *   (JSON would write `{}` or only some of their fields);
 * - cycles;
 * - strings or property names containing `\u0000` or an unpaired UTF-16 surrogate, which Postgres
 *   `jsonb` cannot store;
 * - text larger than `maxBytes` of UTF-8.
 *
 * @packageDocumentation
 */

/** Options of {@link encodePayload}. */
export interface EncodePayloadOptions {
  /** Largest size of the JSON text in UTF-8 bytes, e.g. `OutputBytes` or `InputBytes`. */
  readonly maxBytes: number;
  /** What is being encoded, used as the error's subject, e.g. `run input` or `output of node "charge"`. */
  readonly subject: string;
  /**
   * Where the value sits, prefixed to every issue path, e.g. `input` gives `input.items[3].name`.
   * @defaultValue `''` (paths start at the value's own properties)
   */
  readonly path?: string;
}

/** At most this many issues are reported for one payload; a broken generator can produce millions. */
const MaxIssues = 20;

class TooManyIssues extends Error {}

/**
 * Checks that `value` can be stored as JSON in Postgres without loss and returns the JSON text to
 * store. See the module documentation for exactly what is accepted and rejected.
 *
 * @throws ValidationError naming every offending value (up to 20) by path, or the size and the limit
 */
export function encodePayload(value: unknown, options: EncodePayloadOptions): string {
  let plain: string | undefined;
  try {
    plain = writePlainJson(value, 0);
  } catch {
    // A getter threw: the full check reports it with its path.
  }
  if (plain !== undefined) return checkedSize(plain, options);
  return encodeChecked(value, options);
}

/**
 * Nesting deeper than this leaves the fast path ({@link writePlainJson}) for the full check, which
 * also finds cycles.
 */
const PlainJsonMaxDepth = 32;

/**
 * The fast path of {@link encodePayload}: writes `value` as JSON when it is plain JSON data (null,
 * booleans, finite numbers, well-formed strings, arrays without holes or `undefined`, plain objects
 * without `toJSON`, nested at most {@link PlainJsonMaxDepth} deep), the same text `JSON.stringify`
 * writes; anything else gives undefined, and the full check (`encodeChecked`) runs instead, which
 * names every offending value by path. Most payloads are plain data, and this costs a fraction of
 * the full check, which builds a path and registers each holder. The text is written from the
 * values read, so what is stored is what was checked (a getter runs once here, and again in the
 * full check only when the value turned out not to be plain).
 */
function writePlainJson(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return findIllFormedText(value) === undefined ? JSON.stringify(value) : undefined;
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (depth >= PlainJsonMaxDepth) return undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      // A hole or undefined is refused by the full check, which says where.
      const element: unknown = value[i];
      if (element === undefined) return undefined;
      const written = writePlainJson(element, depth + 1);
      if (written === undefined) return undefined;
      text += i === 0 ? written : `,${written}`;
    }
    return `${text}]`;
  }
  if (!isPlainObject(value)) return undefined;
  let text = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    if (findIllFormedText(key) !== undefined) return undefined;
    const property: unknown = (value as Record<string, unknown>)[key];
    // Left out, as JSON.stringify does (optional properties routinely hold undefined).
    if (property === undefined) continue;
    const written = writePlainJson(property, depth + 1);
    if (written === undefined) return undefined;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${written}`;
    first = false;
  }
  return `${text}}`;
}

/** `text` when it fits `options.maxBytes` of UTF-8. */
function checkedSize(text: string, options: EncodePayloadOptions): string {
  const size = payloadByteLength(text);
  if (size > options.maxBytes) {
    throw new ValidationError(options.subject, [
      {
        path: options.path ?? '',
        message: `is ${size} bytes of UTF-8 JSON, expected at most ${options.maxBytes} bytes`,
      },
    ]);
  }
  return text;
}

/** The full check of {@link encodePayload}: every value visited with its path. */
function encodeChecked(value: unknown, options: EncodePayloadOptions): string {
  const base = options.path ?? '';
  const issues: ValidationIssue[] = [];
  const report = (path: string, message: string): void => {
    if (issues.length >= MaxIssues) throw new TooManyIssues();
    issues.push({ path, message });
  };
  // Every holder seen so far: its path, and the holder it was reached from (to detect cycles).
  const paths = new WeakMap<object, string>();
  const parents = new WeakMap<object, object>();
  // The replacer sees each value after toJSON, with `this` bound to the object holding it, in
  // document order, so one JSON.stringify pass both checks and writes: what is stored is exactly
  // what was checked, and toJSON runs once.
  function replacer(this: unknown, key: string, current: unknown): unknown {
    const holder = this as object;
    const holderPath = paths.get(holder);
    // Every holder but one was registered below when it was visited as a value; the exception is
    // the `{ '': value }` wrapper JSON.stringify starts from.
    const atRoot = holderPath === undefined;
    const inArray = Array.isArray(holder);
    const path = atRoot ? base : joinPath(holderPath, inArray ? Number(key) : key);
    if (!inArray && !atRoot) checkText(key, path, 'property name', report);
    const original = (holder as Record<string, unknown>)[key];
    if (original instanceof Date && Number.isNaN(original.getTime())) {
      report(path, 'an invalid Date, which JSON writes as null, expected a valid Date');
      return null;
    }
    switch (typeof current) {
      case 'string':
        checkText(current, path, 'string', report);
        return current;
      case 'number':
        if (!Number.isFinite(current)) {
          report(
            path,
            `${current} is not JSON (JSON.stringify would write null), expected a finite number`,
          );
          return null;
        }
        return current;
      case 'boolean':
        return current;
      case 'bigint':
        report(path, `a BigInt (${current}n) is not JSON, expected a number or a string`);
        return null;
      case 'function':
      case 'symbol':
        report(
          path,
          `a ${typeof current} is not JSON (JSON.stringify would drop it), expected a JSON value`,
        );
        return null;
      case 'undefined':
        if (atRoot)
          report(
            path,
            'undefined is not JSON, expected a JSON value (null, boolean, number, string, array or object)',
          );
        else if (inArray) {
          const what = key in holder ? 'undefined in an array' : 'a hole in a sparse array';
          report(
            path,
            `${what}, which JSON writes as null, expected a JSON value (use null explicitly)`,
          );
          return null;
        }
        return undefined;
    }
    if (current === null) return null;
    const object = current as object;
    if (!Array.isArray(object) && !isPlainObject(object)) {
      report(
        path,
        `an instance of ${constructorName(object)} is not a plain object or array and has no toJSON, expected JSON data (convert it, e.g. to a plain object or a string)`,
      );
      return null;
    }
    for (
      let ancestor: object | undefined = holder;
      ancestor !== undefined;
      ancestor = parents.get(ancestor)
    ) {
      if (ancestor === object) {
        report(
          path,
          `a cycle: this refers back to ${paths.get(object) || 'the top-level value'}, expected a tree`,
        );
        return null;
      }
    }
    paths.set(object, path);
    parents.set(object, holder);
    return object;
  }

  let text: string | undefined;
  try {
    text = JSON.stringify(value, replacer);
  } catch (error) {
    if (!(error instanceof TooManyIssues)) {
      // A getter or toJSON threw, or the nesting exceeded the call stack.
      issues.push({
        path: base,
        message: `could not be serialised to JSON: ${errorMessage(error)}`,
      });
    } else {
      issues.push({
        path: base,
        message: `further problems not listed (stopped after ${MaxIssues})`,
      });
    }
  }
  if (issues.length > 0 || text === undefined) throw new ValidationError(options.subject, issues);
  return checkedSize(text, options);
}

/**
 * The size of `text` in UTF-8 bytes, counted without encoding it. An unpaired surrogate counts as
 * the three bytes of U+FFFD, as `TextEncoder` writes it.
 */
export function payloadByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Appends property names or array indexes to a path, in the notation of every
 * `ValidationIssue.path`: `a.b` for names made of letters, digits, `_`, `$` and `-`, `a[3]` for
 * indexes and `a["x.y"]` for any other name.
 */
export function joinPath(base: string, ...keys: readonly PropertyKey[]): string {
  let path = base;
  for (const key of keys) {
    if (typeof key === 'number') path += `[${key}]`;
    else if (typeof key === 'symbol') path += `[${String(key)}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(key)) path += path === '' ? key : `.${key}`;
    else path += `[${JSON.stringify(key)}]`;
  }
  return path;
}

function checkText(
  text: string,
  path: string,
  what: 'string' | 'property name',
  report: (path: string, message: string) => void,
): void {
  const bad = findIllFormedText(text);
  if (bad?.problem === 'nul') {
    report(
      path,
      `a ${what} containing \\u0000 (at index ${bad.index}), which Postgres jsonb cannot store, expected text without NUL characters`,
    );
  } else if (bad?.problem === 'lone_surrogate') {
    report(
      path,
      `a ${what} with an unpaired UTF-16 surrogate (at index ${bad.index}), which Postgres jsonb rejects, expected well-formed Unicode`,
    );
  }
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  // Object.prototype of any realm has a null prototype; so does Object.create(null).
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function constructorName(value: object): string {
  const ctor = (value as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === 'string' && ctor.name !== '' ? ctor.name : 'a class';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
