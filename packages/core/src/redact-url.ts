/**
 * `url` with its password replaced by `***`, for error messages and logs (a database URL often
 * carries one). Text that is not a URL gives `<unparseable URL>`: a password could stand anywhere
 * in it.
 *
 * @example
 * ```ts
 * redactUrl('postgres://app:s3cret@db:5432/cyclone'); // 'postgres://app:***@db:5432/cyclone'
 * ```
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '<unparseable URL>';
  }
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
