import type { Command } from 'commander';
import { createProgram } from '../../src/program.js';

/** One command the parser accepts, with the long flags it takes. */
export interface ParsedCommand {
  /** The words after `cyclone`: `schedules backfill`. */
  readonly words: string;
  readonly flags: readonly string[];
  /** The flags the parser requires. */
  readonly required: readonly string[];
}

/**
 * Every command of the parser the CLI builds from its catalogue, with its flags as the parser
 * accepts them (the database flags and `--json` included), for tests that hold docs to the CLI.
 */
export function parsedCommands(): ParsedCommand[] {
  const program = createProgram(
    { out: () => undefined, err: () => undefined, isTTY: false },
    async () => undefined,
  );
  const found: ParsedCommand[] = [];
  const walk = (command: Command, words: string[]) => {
    if (command.commands.length > 0) {
      for (const sub of command.commands) walk(sub, [...words, sub.name()]);
      return;
    }
    const options = command.options.filter((option) => option.long !== undefined);
    found.push({
      words: words.join(' '),
      flags: options.map((option) => option.long!),
      required: options.filter((option) => option.mandatory).map((option) => option.long!),
    });
  };
  for (const command of program.commands) walk(command, [command.name()]);
  return found;
}
