import { describe, expect, it } from 'vitest';
import { ServerOptionsError } from '../src/index.js';
import {
  changesState,
  contentTypeRefusal,
  isOwnOrigin,
  originRefusal,
  parseCorsOrigin,
} from '../src/security/cross-site.js';

const none = new Set<string>();

describe('changesState', () => {
  it('is every method but GET, HEAD and OPTIONS', () => {
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].every(changesState)).toBe(true);
    expect(['GET', 'HEAD', 'OPTIONS'].some(changesState)).toBe(false);
  });
});

describe('isOwnOrigin', () => {
  it("is the origin naming the request's host and port, whatever the scheme", () => {
    expect(isOwnOrigin('http://127.0.0.1:7398', '127.0.0.1:7398')).toBe(true);
    expect(isOwnOrigin('http://[::1]:7398', '[::1]:7398')).toBe(true);
    expect(isOwnOrigin('https://cyclone.example.com', 'cyclone.example.com')).toBe(true);
    expect(isOwnOrigin('http://cyclone.example.com', 'cyclone.example.com:80')).toBe(true);
    expect(isOwnOrigin('https://cyclone.example.com', 'cyclone.example.com:443')).toBe(true);
  });

  it('is no other host, port or form', () => {
    expect(isOwnOrigin('http://evil.example', '127.0.0.1:7398')).toBe(false);
    expect(isOwnOrigin('http://127.0.0.1:7399', '127.0.0.1:7398')).toBe(false);
    expect(isOwnOrigin('http://localhost:7398', '127.0.0.1:7398')).toBe(false);
    expect(isOwnOrigin('null', '127.0.0.1:7398')).toBe(false);
    expect(isOwnOrigin('file://', 'localhost')).toBe(false);
  });
});

describe('originRefusal', () => {
  const host = '127.0.0.1:7398';
  it('refuses Sec-Fetch-Site: cross-site and a foreign Origin, naming which', () => {
    expect(originRefusal({ host, origin: undefined, fetchSite: 'cross-site' }, none)?.code).toBe(
      'CROSS_SITE',
    );
    const foreign = originRefusal(
      { host, origin: 'http://evil.example', fetchSite: undefined },
      none,
    );
    expect(foreign?.code).toBe('FOREIGN_ORIGIN');
    expect(foreign?.message).toContain('"http://evil.example"');
    expect(originRefusal({ host, origin: 'null', fetchSite: 'same-site' }, none)?.code).toBe(
      'FOREIGN_ORIGIN',
    );
  });

  it("lets through the server's own pages, requests without either header, and CORS origins", () => {
    const own = { host, origin: 'http://127.0.0.1:7398', fetchSite: 'same-origin' };
    expect(originRefusal(own, none)).toBeUndefined();
    expect(originRefusal({ host, origin: undefined, fetchSite: undefined }, none)).toBeUndefined();
    const ops = new Set(['https://ops.example.com']);
    const fromOps = { host, origin: 'https://ops.example.com', fetchSite: 'cross-site' };
    expect(originRefusal(fromOps, ops)).toBeUndefined();
    expect(originRefusal(fromOps, none)?.code).toBe('CROSS_SITE');
  });
});

describe('contentTypeRefusal', () => {
  it('takes application/json only, with parameters, in any case', () => {
    expect(contentTypeRefusal('application/json')).toBeUndefined();
    expect(contentTypeRefusal('Application/JSON; charset=utf-8')).toBeUndefined();
    for (const type of [
      undefined,
      'text/plain',
      'text/plain; charset=utf-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
    ]) {
      expect(contentTypeRefusal(type)?.code, String(type)).toBe('JSON_REQUIRED');
    }
    expect(contentTypeRefusal('text/plain')?.message).toContain('"text/plain"');
  });
});

describe('parseCorsOrigin', () => {
  it('takes an http(s) origin in the form browsers send it', () => {
    expect(parseCorsOrigin('https://Ops.Example.com')).toBe('https://ops.example.com');
    expect(parseCorsOrigin('https://ops.example.com:443/')).toBe('https://ops.example.com');
    expect(parseCorsOrigin('http://localhost:3000')).toBe('http://localhost:3000');
  });

  it('refuses anything else, naming the entry', () => {
    for (const bad of ['*', 'ops.example.com', 'https://ops.example.com/app', 'null', 'ftp://x']) {
      expect(() => parseCorsOrigin(bad), bad).toThrow(ServerOptionsError);
    }
    expect(() => parseCorsOrigin('*')).toThrow(
      /corsOrigins \(--cors-origin\): "\*" is not an origin/,
    );
  });
});
