import { describe, expect, it } from 'vitest';
import { DatabaseQueryError, DatabaseUnreachableError, isCycloneError } from '@cyclone/core';
import {
  classifyDatabaseError,
  connectionFailureReason,
  DatabaseFailure,
  toStoreError,
} from './driver-errors.js';

/** An error as pg or Node's socket layer throws it: a message and a string code. */
function driverError(code: string | undefined, message: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

const target = { description: 'postgres://app:***@db:5432/cyclone', schema: 'public' };

describe('classifyDatabaseError', () => {
  it('calls every failed, lost or refused connection a connection failure', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'ENOTFOUND',
      'EAI_AGAIN',
      'ETIMEDOUT',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'EPIPE',
      '08006', // connection_failure: the whole class 08
      '28P01', // invalid_password: the whole class 28
      '3D000',
      '53300',
      '57P01',
      '57P02',
      '57P03',
    ]) {
      expect(classifyDatabaseError(driverError(code, 'x')), code).toBe(DatabaseFailure.Connection);
    }
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Client has encountered a connection error and is not queryable',
      'the database system is starting up',
    ]) {
      expect(classifyDatabaseError(driverError(undefined, message)), message).toBe(
        DatabaseFailure.Connection,
      );
    }
  });

  it('tells conflicts, a missing schema and a refused statement apart', () => {
    expect(classifyDatabaseError(driverError('40001', 'x'))).toBe(DatabaseFailure.Conflict);
    expect(classifyDatabaseError(driverError('40P01', 'x'))).toBe(DatabaseFailure.Conflict);
    expect(classifyDatabaseError(driverError('42P01', 'x'))).toBe(DatabaseFailure.NotMigrated);
    expect(classifyDatabaseError(driverError('3F000', 'x'))).toBe(DatabaseFailure.NotMigrated);
    expect(classifyDatabaseError(driverError('23505', 'duplicate key'))).toBeUndefined();
    expect(classifyDatabaseError(driverError('57014', 'statement timeout'))).toBeUndefined();
    expect(classifyDatabaseError(new Error('handler failed'))).toBeUndefined();
    expect(classifyDatabaseError('ECONNREFUSED')).toBeUndefined();
  });

  it('looks through causes and every address of an AggregateError', () => {
    const wrapped = new DatabaseQueryError('complete', '40001', 'x', {
      cause: driverError('40001', 'could not serialize access'),
    });
    expect(classifyDatabaseError(wrapped)).toBe(DatabaseFailure.Conflict);
    const addresses = new AggregateError([
      driverError('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432'),
      driverError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
    ]);
    expect(classifyDatabaseError(new Error('start failed', { cause: addresses }))).toBe(
      DatabaseFailure.Connection,
    );
    expect(classifyDatabaseError(new DatabaseUnreachableError('db', 'ECONNREFUSED'))).toBe(
      DatabaseFailure.Connection,
    );
  });

  it('survives a cause that loops and a getter that throws', () => {
    const looping = new Error('outer');
    (looping as { cause?: unknown }).cause = looping;
    expect(classifyDatabaseError(looping)).toBeUndefined();
    const hostile = Object.defineProperty(new Error('x'), 'code', {
      get() {
        throw new Error('no');
      },
    });
    expect(classifyDatabaseError(hostile)).toBeUndefined();
  });
});

describe('connectionFailureReason', () => {
  it('gives the driver message with its code, once', () => {
    expect(connectionFailureReason(driverError('3D000', 'database "app" does not exist'))).toBe(
      '3D000: database "app" does not exist',
    );
    expect(
      connectionFailureReason(driverError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1')),
    ).toBe('connect ECONNREFUSED 127.0.0.1:1');
  });

  it('names every address of a host with several, and a timeout as such', () => {
    const addresses = new AggregateError([
      driverError('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432'),
      driverError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
    ]);
    expect(connectionFailureReason(new Error('wrapper', { cause: addresses }))).toBe(
      'connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432',
    );
    expect(connectionFailureReason(driverError(undefined, 'Connection timeout'))).toBe(
      'connection timed out',
    );
  });
});

describe('toStoreError', () => {
  it('maps each class to its typed error, the driver error as cause', () => {
    const refused = driverError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:5432');
    const unreachable = toStoreError(refused, 'claim', target);
    expect(unreachable).toMatchObject({ code: 'DATABASE_UNREACHABLE', cause: refused });
    expect(unreachable.message).toBe(
      'cannot reach the database at postgres://app:***@db:5432/cyclone: connect ECONNREFUSED 10.0.0.1:5432',
    );
    expect(toStoreError(driverError('42P01', 'x'), 'claim', target)).toMatchObject({
      code: 'SCHEMA_NOT_MIGRATED',
      schema: 'public',
    });
    expect(toStoreError(driverError('23505', 'duplicate key'), 'submit', target)).toMatchObject({
      code: 'DATABASE_QUERY_FAILED',
      sqlState: '23505',
      message: 'submit failed (SQLSTATE 23505): duplicate key',
    });
    const own = new DatabaseUnreachableError('db', 'x');
    expect(toStoreError(own, 'claim', target)).toBe(own);
    expect(isCycloneError(toStoreError('thrown text', 'claim', target))).toBe(true);
  });
});
