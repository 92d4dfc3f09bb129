import { describe, expect, it } from 'vitest';
import {
  DatabaseUnreachableError,
  isCycloneError,
  NotFoundError,
  SchemaNotMigratedError,
} from './errors.js';

describe('isCycloneError', () => {
  it('is true for Cyclone errors, with or without their code', () => {
    const error = new NotFoundError('run', 'r1');
    expect(isCycloneError(error)).toBe(true);
    expect(isCycloneError(error, 'NOT_FOUND')).toBe(true);
    expect(isCycloneError(error, 'VALIDATION')).toBe(false);
  });

  it('is false for other errors that carry a string code, such as a driver error', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    expect(isCycloneError(refused)).toBe(false);
    expect(isCycloneError(refused, 'ECONNREFUSED')).toBe(false);
    expect(isCycloneError({ code: 'NOT_FOUND' })).toBe(false);
  });

  it('recognises an error of another installed copy by its shared brand', () => {
    // A second copy of the library defines its own classes but brands with the same Symbol.for key.
    const foreign = Object.assign(new Error('run r1 not found'), { code: 'NOT_FOUND' });
    Object.defineProperty(foreign, Symbol.for('@cyclone/core/error'), { value: true });
    expect(isCycloneError(foreign, 'NOT_FOUND')).toBe(true);
  });
});

describe('driver-facing errors', () => {
  it('keep the driver error as cause and say what to do', () => {
    const cause = new Error('relation "cyclone_runs" does not exist');
    const error = new SchemaNotMigratedError('public', ['0005_settlements'], { cause });
    expect(error.code).toBe('SCHEMA_NOT_MIGRATED');
    expect(error.cause).toBe(cause);
    expect(error.message).toContain('0005_settlements');
    expect(error.message).toContain('cyclone migrate');
    expect(new DatabaseUnreachableError('postgres://h/db', 'ECONNREFUSED').code).toBe(
      'DATABASE_UNREACHABLE',
    );
  });
});
