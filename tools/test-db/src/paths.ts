/** Folders of the repository that the harness reads. */
import { fileURLToPath } from 'node:url';

/** The repository root (this file is `tools/test-db/src/paths.ts`). */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The repo's drizzle-kit migrations folder, applied to the template database. */
export const migrationsFolder = fileURLToPath(new URL('../../../migrations', import.meta.url));
