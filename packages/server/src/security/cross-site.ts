import { ServerOptionsError } from './errors.js';
import { parseHost } from './host-policy.js';
import { isReadMethod } from './tokens.js';

/** Why a request was refused as one a page elsewhere may have made a browser send (403). */
export interface Refusal {
  readonly code: 'CROSS_SITE' | 'FOREIGN_ORIGIN' | 'JSON_REQUIRED';
  readonly message: string;
}

/** What the cross-site checks read of a request. */
export interface RequestFacts {
  /** The request's `Host` (already checked by the host policy). */
  readonly host: string;
  readonly origin: string | undefined;
  /** `Sec-Fetch-Site`: `same-origin`, `same-site`, `cross-site` or `none`. */
  readonly fetchSite: string | undefined;
}

/**
 * Whether a method changes something: every method but GET, HEAD and OPTIONS (a CORS preflight).
 * These are the requests the cross-site checks guard and that need the Bearer token.
 */
export function changesState(method: string): boolean {
  return !isReadMethod(method) && method !== 'OPTIONS';
}

/**
 * Parses an entry of `corsOrigins` into the form browsers send in `Origin`
 * (`https://ops.example.com`, default port omitted).
 *
 * @throws ServerOptionsError for anything but an http(s) origin without a path
 */
export function parseCorsOrigin(entry: string): string {
  const url = URL.canParse(entry) ? new URL(entry) : undefined;
  const bare =
    url !== undefined &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '' &&
    url.username === '' &&
    url.password === '';
  if (!bare) {
    throw new ServerOptionsError(
      `corsOrigins (--cors-origin): ${JSON.stringify(entry)} is not an origin: expected a scheme, a host and ` +
        'an optional port, with no path ("https://ops.example.com", "http://localhost:3000")',
    );
  }
  return url.origin;
}

/**
 * Whether `origin` is this server's own: it names the host and port the request was sent to.
 * The scheme is not compared, so a page served through a TLS proxy is its own origin
 * (decision 153); a port left out is the scheme's default on both sides.
 */
export function isOwnOrigin(origin: string, host: string): boolean {
  if (!URL.canParse(origin)) return false; // `null`: a sandboxed frame, a file, a redirect
  const url = new URL(origin);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const theirs = parseHost(url.host);
  const ours = parseHost(host);
  if (theirs === undefined || ours === undefined) return false;
  const defaultPort = url.protocol === 'https:' ? 443 : 80;
  return (
    theirs.hostname === ours.hostname && (theirs.port ?? defaultPort) === (ours.port ?? defaultPort)
  );
}

/**
 * Refuses a request a page elsewhere sent: `Sec-Fetch-Site: cross-site`, or an `Origin` that is
 * not this server's own. An origin in `trusted` (the CORS origins) passes both. A request with
 * neither header (a service, a script, curl) passes: it is no browser's.
 */
export function originRefusal(
  facts: RequestFacts,
  trusted: ReadonlySet<string>,
): Refusal | undefined {
  const { origin } = facts;
  if (origin !== undefined && trusted.has(origin)) return undefined;
  if (facts.fetchSite?.toLowerCase() === 'cross-site') {
    return {
      code: 'CROSS_SITE',
      message:
        'refused: a page on another site sent this request (Sec-Fetch-Site: cross-site); only ' +
        "this server's own pages may change anything",
    };
  }
  if (origin !== undefined && !isOwnOrigin(origin, facts.host)) {
    return {
      code: 'FOREIGN_ORIGIN',
      message:
        `refused: a page of ${JSON.stringify(origin.slice(0, 200))} sent this request; only ` +
        "this server's own pages may change anything (other origins: --cors-origin, corsOrigins)",
    };
  }
  return undefined;
}

/**
 * Refuses a change whose body is not declared JSON. A form or a `text/plain` body is what a page
 * elsewhere can make a browser send without asking the server first (a CORS "simple" request);
 * JSON cannot be sent across origins without a preflight, which the server grants no one but the
 * CORS origins. An empty body must declare it too.
 */
export function contentTypeRefusal(contentType: string | undefined): Refusal | undefined {
  const media = contentType?.split(';')[0]!.trim().toLowerCase();
  if (media === 'application/json') return undefined;
  return {
    code: 'JSON_REQUIRED',
    message:
      'refused: a request that changes something must have Content-Type: application/json, an ' +
      `empty body too (it had ${contentType === undefined ? 'none' : JSON.stringify(contentType.slice(0, 100))})`,
  };
}
