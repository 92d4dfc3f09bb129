import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('hides the password and keeps the rest of the URL', () => {
    expect(redactUrl('postgres://app:s3cret@db:5432/cyclone?sslmode=require')).toBe(
      'postgres://app:***@db:5432/cyclone?sslmode=require',
    );
  });

  it('leaves a URL without a password as it is', () => {
    expect(redactUrl('postgres://app@db/cyclone')).toBe('postgres://app@db/cyclone');
  });

  it('shows nothing of text that is not a URL', () => {
    expect(redactUrl('//app:s3cret@db/cyclone')).toBe('<unparseable URL>');
  });
});
