import { describe, expect, it } from 'vitest';
import {
  AlreadyPausedError,
  AlreadyTerminalError,
  ChildNotRetryableError,
  DatabaseUnreachableError,
  NoExhaustedNodeError,
  NotFoundError,
  NotPausedError,
  ValidationError,
} from '@cyclone/core';
import { toHttpError } from '../src/http/http-errors.js';
import { accessOf, presentedCredentials, sameSecret } from '../src/security/tokens.js';
import { isLoopback } from '../src/security/bind-policy.js';

describe('toHttpError', () => {
  it('answers 409 with the stable code and the reason for each refused operator action', () => {
    const refusals = [
      [
        new AlreadyTerminalError('r', 'completed', { reason: 'terminal' }),
        'ALREADY_TERMINAL',
        'terminal',
      ],
      [
        new NoExhaustedNodeError('r', 'n', { reason: 'invalid-entry' }),
        'NO_EXHAUSTED_NODE',
        'invalid-entry',
      ],
      [new ChildNotRetryableError('r', 'invoice', 'c'), 'CHILD_NOT_RETRYABLE', 'invalid-entry'],
      [new AlreadyPausedError('r', { reason: 'invalid-entry' }), 'ALREADY_PAUSED', 'invalid-entry'],
      [
        new NotPausedError('r', 'running', { reason: 'invalid-entry' }),
        'NOT_PAUSED',
        'invalid-entry',
      ],
    ] as const;
    for (const [error, code, reason] of refusals) {
      expect(toHttpError(error)).toEqual({
        status: 409,
        body: { error: { code, reason, message: error.message } },
        internal: false,
      });
    }
  });

  it('answers 404, 400 with the issues, 503, and a 500 that says nothing of the internals', () => {
    expect(toHttpError(new NotFoundError('run', 'x')).status).toBe(404);
    const invalid = toHttpError(
      new ValidationError('request body', [{ path: 'node', message: 'required' }]),
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.issues).toEqual([{ path: 'node', message: 'required' }]);
    expect(toHttpError(new DatabaseUnreachableError('db', 'ECONNREFUSED')).status).toBe(503);
    const crash = toHttpError(new TypeError("Cannot read properties of undefined (reading 'x')"));
    expect(crash).toMatchObject({ status: 500, internal: true });
    expect(JSON.stringify(crash.body)).not.toContain('Cannot read');
  });
});

describe('auth', () => {
  it('compares secrets of any length', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abcd')).toBe(false);
    expect(sameSecret('', 'abc')).toBe(false);
  });

  it('reads Bearer tokens and the password of Basic credentials, with their scheme', () => {
    expect(presentedCredentials('Bearer t0k')).toEqual({ scheme: 'bearer', secret: 't0k' });
    expect(presentedCredentials(`Basic ${Buffer.from('u:p:w').toString('base64')}`)).toEqual({
      scheme: 'basic',
      secret: 'p:w',
    });
    expect(presentedCredentials('Token x')).toBeUndefined();
    const tokens = { token: 'f', readOnlyToken: 'r' };
    expect(accessOf(presentedCredentials('Bearer r'), tokens)).toBe('read');
    expect(accessOf(presentedCredentials('Bearer f'), tokens)).toBe('full');
    expect(accessOf(undefined, { token: 'f' })).toBe('none');
  });

  it('treats only loopback hosts as local', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('localhost')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(isLoopback('192.168.1.2')).toBe(false);
  });
});
