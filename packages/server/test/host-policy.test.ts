import { describe, expect, it } from 'vitest';
import { ServerOptionsError } from '../src/index.js';
import {
  HostPolicy,
  parseAllowedHost,
  parseHost,
  type ServedAddress,
} from '../src/security/host-policy.js';

const listening =
  (hosts: string[], port: number): (() => ServedAddress) =>
  () => ({ hosts, port });

describe('parseHost', () => {
  it('reads names, IPv4 and bracketed IPv6 literals, with a port or without', () => {
    expect(parseHost('LocalHost:7300')).toEqual({ hostname: 'localhost', port: 7300 });
    expect(parseHost('localhost.')).toEqual({ hostname: 'localhost', port: undefined });
    expect(parseHost('10.0.0.5:80')).toEqual({ hostname: '10.0.0.5', port: 80 });
    expect(parseHost('[::1]:7300')).toEqual({ hostname: '::1', port: 7300 });
    expect(parseHost('[::FFFF:7f00:1]')).toEqual({ hostname: '::ffff:7f00:1', port: undefined });
  });

  it('refuses what is not a host', () => {
    for (const bad of ['', '::1', '[nope]:1', 'a b', 'evil.example:99999', 'a@b', ':7300', 'x:']) {
      expect(parseHost(bad), bad).toBeUndefined();
    }
  });
});

describe('parseAllowedHost', () => {
  it('takes a name, a name with a port, and a domain with its subdomains', () => {
    expect(parseAllowedHost('cyclone.example.com')).toEqual({
      hostname: 'cyclone.example.com',
      port: undefined,
      subdomains: false,
    });
    expect(parseAllowedHost('.Example.com:8443')).toEqual({
      hostname: 'example.com',
      port: 8443,
      subdomains: true,
    });
  });

  it('refuses an entry of no known form, naming it', () => {
    expect(() => parseAllowedHost('https://cyclone.example.com')).toThrow(ServerOptionsError);
    expect(() => parseAllowedHost('https://cyclone.example.com')).toThrow(
      /allowedHosts \(--allowed-host\): "https:\/\/cyclone\.example\.com" is not a host/,
    );
    expect(() => parseAllowedHost('.10.0.0.5')).toThrow(ServerOptionsError);
    expect(() => parseAllowedHost('*')).toThrow(ServerOptionsError);
  });
});

describe('HostPolicy', () => {
  it('on loopback, allows the bound address and localhost with its port, nothing else', () => {
    const policy = new HostPolicy([], listening(['127.0.0.1', '127.0.0.1'], 7398));
    for (const host of ['127.0.0.1:7398', 'localhost:7398', '[::1]:7398', 'LOCALHOST:7398']) {
      expect(policy.allows(host), host).toBe(true);
    }
    for (const host of [
      'evil.example:7398',
      'evil.example',
      'localhost:7399',
      'localhost', // port 80
      '10.0.0.5:7398',
      'localhost.evil.example:7398',
      '',
    ]) {
      expect(policy.allows(host), host).toBe(false);
    }
  });

  it('on an IPv6 bind, allows its bracketed literal', () => {
    const policy = new HostPolicy([], listening(['::1', '::1'], 7398));
    expect(policy.allows('[::1]:7398')).toBe(true);
    expect(policy.allows('[::2]:7398')).toBe(false);
  });

  it('on a wildcard bind, allows any IP address with the port, and names only when allowed', () => {
    const open = new HostPolicy([], listening(['0.0.0.0', '0.0.0.0'], 7300));
    expect(open.allows('192.0.2.10:7300')).toBe(true);
    expect(open.allows('[2001:db8::1]:7300')).toBe(true);
    expect(open.allows('192.0.2.10:8080')).toBe(false);
    expect(open.allows('cyclone.example.com:7300')).toBe(false);

    const named = new HostPolicy(
      ['cyclone.example.com', 'ops.example.com:8443', '.internal.example'],
      listening(['::', '::'], 7300),
    );
    expect(named.allows('cyclone.example.com')).toBe(true); // behind a proxy on port 443
    expect(named.allows('cyclone.example.com:9000')).toBe(true);
    expect(named.allows('ops.example.com:8443')).toBe(true);
    expect(named.allows('ops.example.com:7300')).toBe(false);
    expect(named.allows('a.b.internal.example:1')).toBe(true);
    expect(named.allows('internal.example')).toBe(true);
    expect(named.allows('evilinternal.example')).toBe(false);
  });

  it('on a named bind, allows that name with the port', () => {
    const policy = new HostPolicy([], listening(['cyclone.lan', '10.0.0.5'], 7300));
    expect(policy.allows('cyclone.lan:7300')).toBe(true);
    expect(policy.allows('10.0.0.5:7300')).toBe(true);
    expect(policy.allows('10.0.0.6:7300')).toBe(false);
  });

  it('embedded (not listening), allows loopback names on any port and the allowed hosts', () => {
    const policy = new HostPolicy(['app.example.com'], () => undefined);
    expect(policy.allows('localhost:3000')).toBe(true);
    expect(policy.allows('127.0.0.1')).toBe(true);
    expect(policy.allows('app.example.com')).toBe(true);
    expect(policy.allows('10.0.0.5:3000')).toBe(false);
    expect(policy.allows('evil.example:3000')).toBe(false);
  });

  it('refuses an allowedHosts entry of no known form at construction', () => {
    expect(() => new HostPolicy(['http://x'], () => undefined)).toThrow(ServerOptionsError);
  });
});
