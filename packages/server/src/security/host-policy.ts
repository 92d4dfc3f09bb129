import { isIP } from 'node:net';
import { isLoopback } from './bind-policy.js';
import { ServerOptionsError } from './errors.js';

/**
 * A host as a `Host` header (or an `Origin`, or an entry of `allowedHosts`) names it: the name in
 * lower case, without the brackets of an IPv6 literal or a final dot, and the port when one is
 * written.
 */
export interface HostName {
  readonly hostname: string;
  readonly port: number | undefined;
}

/** An entry of `allowedHosts`: a name or address, with a port or any, or a domain with its subdomains. */
export interface AllowedHost extends HostName {
  /** Written with a leading dot (`.example.com`): the domain and every name below it. */
  readonly subdomains: boolean;
}

/** Where a listening server is reached: the host it was asked to bind, the address it bound, its port. */
export interface ServedAddress {
  readonly hosts: readonly string[];
  readonly port: number;
}

const Bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/i;
const Plain = /^([a-z0-9_-][a-z0-9_.-]*?)\.?(?::(\d{1,5}))?$/i;

/** Binds that listen on every address of the machine. */
const Wildcards = new Set(['0.0.0.0', '::', '']);

/** A request without a port in its `Host` came to port 80. */
const ImpliedPort = 80;

/** Parses `name`, `name:port`, `1.2.3.4:port` or `[::1]:port`; undefined for anything else. */
export function parseHost(value: string): HostName | undefined {
  const bracketed = Bracketed.exec(value);
  const match = bracketed ?? Plain.exec(value);
  if (!match) return undefined;
  const hostname = match[1]!.toLowerCase();
  if (bracketed && isIP(hostname) !== 6) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > 65_535) return undefined;
  return { hostname, port };
}

/**
 * Parses an entry of `allowedHosts`.
 *
 * @throws ServerOptionsError naming the entry and the forms expected
 */
export function parseAllowedHost(entry: string): AllowedHost {
  const subdomains = entry.startsWith('.');
  const parsed = parseHost(subdomains ? entry.slice(1) : entry);
  if (parsed === undefined || (subdomains && isIP(parsed.hostname) !== 0)) {
    throw new ServerOptionsError(
      `allowedHosts (--allowed-host): ${JSON.stringify(entry)} is not a host: expected a name or an address, ` +
        'with a port or without ("cyclone.example.com", "10.0.0.5:7300", "[::1]:7300"), or ' +
        '".example.com" for a domain and its subdomains',
    );
  }
  return { ...parsed, subdomains };
}

function matchesEntry(entry: AllowedHost, host: HostName): boolean {
  const named =
    entry.hostname === host.hostname ||
    (entry.subdomains && host.hostname.endsWith(`.${entry.hostname}`));
  return named && (entry.port === undefined || entry.port === (host.port ?? ImpliedPort));
}

/** A bound host as {@link parseHost} writes names: lower case, no brackets. */
function boundName(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/**
 * Which `Host` headers name this server (decision 151). A page on a name an attacker controls
 * can have that name resolve to this machine (DNS rebinding); its requests then carry the
 * attacker's name in `Host`, and are refused.
 *
 * - Listening: loopback names (`localhost`, `127.0.0.0/8`, `[::1]`) and the bound host, with the
 *   port it listens on; on a wildcard bind (`0.0.0.0`, `::`) any IP address with that port, since
 *   an address cannot be rebound.
 * - Embedded in another server (its port unknown): loopback names on any port.
 * - Always: the `allowedHosts` entries.
 */
export class HostPolicy {
  private readonly allowed: readonly AllowedHost[];

  /**
   * @param allowedHosts the entries of `allowedHosts`
   * @param served where the server listens now, or undefined while it does not
   * @throws ServerOptionsError for an entry that is not a host
   */
  constructor(
    allowedHosts: readonly string[],
    private readonly served: () => ServedAddress | undefined,
  ) {
    this.allowed = allowedHosts.map(parseAllowedHost);
  }

  /** Whether a request whose `Host` is `header` is addressed to this server. */
  allows(header: string): boolean {
    const host = parseHost(header);
    if (host === undefined) return false;
    if (this.allowed.some((entry) => matchesEntry(entry, host))) return true;
    const served = this.served();
    if (served === undefined) return isLoopback(host.hostname);
    if ((host.port ?? ImpliedPort) !== served.port) return false;
    if (isLoopback(host.hostname)) return true;
    const bound = served.hosts.map(boundName);
    if (bound.includes(host.hostname)) return true;
    return bound.some((name) => Wildcards.has(name)) && isIP(host.hostname) !== 0;
  }
}
