import { describe, expect, it } from 'vitest';
import { redactUrl } from '@cyclone/core';
import {
  createdAt,
  databaseUrl,
  newRoleName,
  newRunTag,
  newTestDatabaseName,
  quoteIdent,
} from './names.js';

describe('names', () => {
  it('quotes identifiers, doubling embedded quotes', () => {
    expect(quoteIdent('plain')).toBe('"plain"');
    expect(quoteIdent('we"ird')).toBe('"we""ird"');
    expect(() => quoteIdent('nul\0')).toThrow(/NUL/);
  });

  it('reads the creation time back from a database name', () => {
    const now = new Date('2030-01-02T03:04:05Z');
    const tag = newRunTag(now);
    expect(createdAt(`cyclone_tpl_${tag}`)?.getTime()).toBe(
      Math.floor(now.getTime() / 1000) * 1000,
    );
    expect(createdAt(newTestDatabaseName(tag))?.getTime()).toBe(
      Math.floor(now.getTime() / 1000) * 1000,
    );
    expect(createdAt(newRoleName(tag))?.getTime()).toBe(Math.floor(now.getTime() / 1000) * 1000);
    expect(createdAt('cyclone_runs')).toBeUndefined();
    expect(createdAt('postgres')).toBeUndefined();
  });

  it('keeps test database and role names within the 63-byte identifier limit', () => {
    expect(newTestDatabaseName(newRunTag()).length).toBeLessThanOrEqual(63);
    expect(newRoleName(newRunTag()).length).toBeLessThanOrEqual(63);
  });

  it('points a server URL at another database, keeping its credentials and options', () => {
    expect(databaseUrl('postgres://u:p@h:5433/postgres?sslmode=disable', 'cyclone_test_x')).toBe(
      'postgres://u:p@h:5433/cyclone_test_x?sslmode=disable',
    );
    expect(redactUrl('postgres://u:secret@h/db')).toBe('postgres://u:***@h/db');
  });
});
