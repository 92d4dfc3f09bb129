import { createHash, timingSafeEqual } from 'node:crypto';

/** The tokens a server accepts; with neither, every request is let through (loopback only). */
export interface Tokens {
  /** May do everything. */
  readonly token?: string | undefined;
  /** May only read (GET and HEAD). */
  readonly readOnlyToken?: string | undefined;
}

/** What a request may do, by the credentials it presented. */
export type Access = 'full' | 'read' | 'none';

/** The access of a request let through. */
export type Granted = Exclude<Access, 'none'>;

/**
 * Compares in time independent of where the strings differ and of their lengths: both sides are
 * hashed first, so `timingSafeEqual` always sees 32 bytes each.
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The scheme credentials came in: `bearer` from a script or a service, `basic` from a browser's prompt. */
export type Scheme = 'bearer' | 'basic';

/** What an `Authorization` header presented. */
export interface Presented {
  readonly scheme: Scheme;
  readonly secret: string;
}

/**
 * The credentials of an `Authorization` header: a Bearer token, or the password of Basic
 * credentials (a browser opening the dashboard asks for them once and sends them with every
 * request; the user name is ignored). Undefined for any other header.
 */
export function presentedCredentials(header: string | undefined): Presented | undefined {
  if (header === undefined) return undefined;
  const match = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(header);
  if (!match) return undefined;
  if (match[1]!.toLowerCase() === 'bearer') return { scheme: 'bearer', secret: match[2]! };
  const decoded = Buffer.from(match[2]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { scheme: 'basic', secret: decoded.slice(colon + 1) };
}

/** Whether any token is configured: then every request but the health check needs one. */
export function requiresToken(tokens: Tokens): boolean {
  return Boolean(tokens.token) || Boolean(tokens.readOnlyToken);
}

/** The access presented credentials grant. Both tokens are compared, whichever matches. */
export function accessOf(presented: Presented | undefined, tokens: Tokens): Access {
  if (presented === undefined) return 'none';
  const full = tokens.token ? sameSecret(presented.secret, tokens.token) : false;
  const read = tokens.readOnlyToken ? sameSecret(presented.secret, tokens.readOnlyToken) : false;
  if (full) return 'full';
  return read ? 'read' : 'none';
}

/** Methods a read-only token may use. */
export function isReadMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}
