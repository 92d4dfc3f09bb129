/**
 * `@cyclone/cli`: the `cyclone` command. Use it from a shell (`npx cyclone --help`), or call
 * {@link main} to embed it.
 *
 * @example
 * ```ts
 * import { main } from '@cyclone/cli';
 * process.exitCode = await main(['runs', 'list', '--state', 'failed', '--json']);
 * ```
 *
 * @packageDocumentation
 */
export { main } from './main.js';
export type { Output } from './terminal/output.js';
