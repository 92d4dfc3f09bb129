import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact-secrets.js';
import { loggableError } from './log-error.js';

describe('redactSecrets', () => {
  it('redacts the password of a URL, keeping the user and the host', () => {
    expect(redactSecrets('connect postgres://app:hunter2@db.internal:5432/prod failed')).toBe(
      'connect postgres://app:[redacted]@db.internal:5432/prod failed',
    );
    expect(redactSecrets('https://u:p@ss@example.com/x')).toBe(
      'https://u:[redacted]@example.com/x',
    );
  });

  it('redacts password=, secret=, token= and api keys, in every notation', () => {
    const text =
      'password=hunter2 PGPASSWORD=hunter3 client_secret: s3cr3t "token":"t0k3n" api_key=\'k3y\'';
    const redacted = redactSecrets(text);
    for (const secret of ['hunter2', 'hunter3', 's3cr3t', 't0k3n', 'k3y']) {
      expect(redacted).not.toContain(secret);
    }
    expect(redacted).toContain('password=[redacted]');
    expect(redacted).toContain('"token":[redacted]');
  });

  it('redacts bearer and basic credentials', () => {
    expect(redactSecrets('Authorization: Bearer eyJhbGciOi.abc-def_ghi')).not.toContain('eyJ');
    expect(redactSecrets('sent Basic dXNlcjpwYXNz')).toBe('sent Basic [redacted]');
  });

  it('leaves text without secrets alone', () => {
    const text = 'card declined for order 42 at https://shop.example/orders/42';
    expect(redactSecrets(text)).toBe(text);
  });
});

describe('loggableError', () => {
  it('keeps the type, code and redacted message only, never other properties', () => {
    const error = Object.assign(new Error('login failed: password=hunter2'), {
      code: '28P01',
      detail: 'Key (email)=(alice@example.com) already exists',
    });
    expect(loggableError(error)).toEqual({
      type: 'Error',
      code: '28P01',
      message: 'login failed: password=[redacted]',
    });
    expect(loggableError(error, false)).toEqual({ type: 'Error', code: '28P01' });
  });

  it('caps a huge message and survives values String() cannot convert', () => {
    const logged = loggableError(new Error('x'.repeat(1_000_000)));
    expect(logged.message!.length).toBeLessThanOrEqual(1024);
    expect(loggableError(Object.create(null))).toEqual({ type: 'object', message: '{}' });
  });
});
