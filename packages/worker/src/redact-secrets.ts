/**
 * Redaction of the secrets that error messages routinely carry, applied to every error text the
 * worker logs. A pattern list cannot catch every secret, which is why handler messages are not
 * logged at all unless the application opts in (`logErrorMessages`).
 */

/** What replaces a redacted secret. */
export const Redacted = '[redacted]';

const rules: readonly (readonly [RegExp, string])[] = [
  // The password of a URL's userinfo: `postgres://user:secret@host/db`. Greedy up to the last `@`
  // before the host, so a password holding `@` is redacted whole.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*):[^\s/]*@/gi, `$1:${Redacted}@`],
  // Authorization header values: `Bearer eyJ...`, `Basic dXNlcjpwYXNz`.
  [/\b(bearer|basic)\s+[\w.~+/=-]+/gi, `$1 ${Redacted}`],
  // `key=value`, `key: value` and `"key": "value"` for keys that name a secret.
  [
    /\b([\w-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)[\w-]*)(["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&;,'"]+)/gi,
    `$1$2${Redacted}`,
  ],
];

/**
 * `text` with known secret patterns replaced by `[redacted]`: URL passwords, `password=`,
 * `secret=`, `token=`, `api_key=` and similar assignments (also as `key: value` and JSON), and
 * bearer and basic credentials.
 *
 * @example
 * ```ts
 * redactSecrets('connect postgres://app:hunter2@db/x failed'); // 'connect postgres://app:[redacted]@db/x failed'
 * ```
 */
export function redactSecrets(text: string): string {
  let result = text;
  for (const [pattern, replacement] of rules) result = result.replace(pattern, replacement);
  return result;
}
