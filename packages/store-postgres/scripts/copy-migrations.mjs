// Ships the repository's SQL migrations inside the package (dist/ reads them from ../migrations).
// Only what migrate() reads is copied, the SQL files and meta/_journal.json: drizzle-kit's
// snapshots serve `db:generate` in this repository and mean nothing to an installed package.
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../../../migrations', import.meta.url));
const target = fileURLToPath(new URL('../migrations', import.meta.url));
rmSync(target, { recursive: true, force: true });
mkdirSync(path.join(target, 'meta'), { recursive: true });
for (const file of readdirSync(source).filter((name) => name.endsWith('.sql'))) {
  cpSync(path.join(source, file), path.join(target, file));
}
cpSync(path.join(source, 'meta', '_journal.json'), path.join(target, 'meta', '_journal.json'));
