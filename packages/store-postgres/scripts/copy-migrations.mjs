// Ships the repository's SQL migrations inside the package (dist/ reads them from ../migrations).
import { cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../../../migrations', import.meta.url));
const target = fileURLToPath(new URL('../migrations', import.meta.url));
rmSync(target, { recursive: true, force: true });
cpSync(source, target, { recursive: true });
