import { CommanderError } from 'commander';
import { ExitCode } from './framework/exit-codes.js';
import { processOutput, type Output } from './terminal/output.js';
import { createProgram } from './program.js';
import { reportError } from './report-error.js';

/** Parser outcomes that are not errors: help or version asked for. */
const informational = new Set(['commander.helpDisplayed', 'commander.version']);

/** Runs the `cyclone` command with the given arguments; resolves with the exit code. */
export async function main(
  argv: readonly string[],
  output: Output = processOutput,
): Promise<number> {
  // Known before parsing, so that a parser error honours it too.
  const json = argv.includes('--json');
  let commandName = '';
  let exitCode: number = ExitCode.Ok;
  const program = createProgram(output, async (name, command, ctx) => {
    commandName = name;
    exitCode = await command(ctx);
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (informational.has(error.code)) return ExitCode.Ok;
      // Help shown because a command is missing (`cyclone`, `cyclone runs`): a usage error.
      if (error.code === 'commander.help') return ExitCode.Usage;
    }
    return reportError(error, { command: commandName, json, output });
  }
}
