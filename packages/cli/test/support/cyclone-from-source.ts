// The `cyclone` executable, run from the TypeScript sources (no build): what bin/cyclone.js does
// with dist/. Start it with `node --conditions=@cyclone/source --import tsx <this file> ...args`.
import { runFromShell } from '../../src/shell.js';

await runFromShell();
