import { main } from './main.js';

/**
 * Makes a closed stdout (`cyclone runs list | head -1`) end the process quietly: the reader has
 * what it wanted, and an unhandled EPIPE would crash with a stack trace.
 */
export function exitQuietlyOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE')
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    throw error;
  });
}

/** The `cyclone` executable: runs {@link main} on the process's arguments and streams. */
export async function runFromShell(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  exitQuietlyOnBrokenPipe(process.stdout);
  process.exitCode = await main(argv);
}
