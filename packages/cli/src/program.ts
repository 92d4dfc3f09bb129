import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { addCommand, addGroup, type ActionOf, type CommandFn } from './framework/command-spec.js';
import { commandCatalogue } from './commands/catalogue.js';
import type { CommandContext } from './framework/context.js';
import type { Output } from './terminal/output.js';

export type { CommandFn } from './framework/command-spec.js';

/** Called when the parser has chosen a command and checked its arguments. */
export type Dispatch = (name: string, command: CommandFn, ctx: CommandContext) => Promise<void>;

/** The version in this package's package.json (one level above both src/ and dist/). */
export function cliVersion(): string {
  const manifest = JSON.parse(
    readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
  ) as {
    version: string;
  };
  return manifest.version;
}

/**
 * The `cyclone` command tree, built from the catalogue of command specs. The parser throws
 * instead of exiting (tests and embedders call {@link main} in-process), and everything it
 * prints goes through `output`.
 */
export function createProgram(output: Output, dispatch: Dispatch): Command {
  const program = new Command('cyclone')
    .description('operate Cyclone, the durable workflow engine on PostgreSQL')
    .usage('<command> [arguments] [options]')
    .version(cliVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => output.out(text.trimEnd()),
      writeErr: (text) => output.err(text.trimEnd()),
      // Parser errors are printed by reportError, in the same shape as every other error.
      outputError: () => undefined,
    })
    .addOption(new Option('--json', 'print JSON (errors too)').hideHelp());

  const action: ActionOf = (name, command) =>
    async function (this: Command) {
      const options = this.optsWithGlobals();
      await dispatch(name, command, {
        args: this.args,
        flags: {
          ...(typeof options.databaseUrl === 'string' ? { databaseUrl: options.databaseUrl } : {}),
          ...(typeof options.schema === 'string' ? { schema: options.schema } : {}),
          ...(typeof options.pooler === 'string' ? { pooler: options.pooler } : {}),
          ...(typeof options.listenDatabaseUrl === 'string'
            ? { listenDatabaseUrl: options.listenDatabaseUrl }
            : {}),
          json: options.json === true,
        },
        options,
        output,
      });
    };

  for (const entry of commandCatalogue) {
    if ('commands' in entry) addGroup(program, entry, action);
    else addCommand(program, entry, action);
  }
  return program;
}
