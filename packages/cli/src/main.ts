import { parseArgs } from 'node:util';
import { isCycloneError } from '@cyclone/core';
import { UsageError } from './cli-error.js';
import { processOutput, type Output } from './output.js';
import type { CommandContext } from './commands/context.js';
import { devCommand } from './commands/dev.js';
import { migrateCommand } from './commands/migrate.js';
import { runsListCommand, runsShowCommand } from './commands/runs.js';
import { stepsCommand } from './commands/steps.js';
import { eventsCommand } from './commands/events.js';

const USAGE = `cyclone: operate Cyclone, the durable workflow engine on PostgreSQL

usage: cyclone <command> [arguments] [options]

commands:
  dev                      start an embedded PostgreSQL, a worker and the scheduler, and run
                           the sample workflow live (--data-dir DIR, default .cyclone/dev-db;
                           --keep to leave the engine running afterwards)
  migrate                  apply Cyclone's migrations
  runs list                list runs, newest first (--state S[,S], --workflow W, --limit N)
  runs show RUN            show one run
  steps RUN                list a run's steps with their states
  events RUN               list a run's events in order

options:
  --database-url URL       the database (default: $CYCLONE_DATABASE_URL)
  --schema NAME            Postgres schema of Cyclone's tables (default: public)
  --json                   print JSON instead of tables
  -h, --help               show this help`;

type Command = (ctx: CommandContext) => Promise<number>;

const COMMANDS: Readonly<Record<string, Command>> = {
  dev: devCommand,
  migrate: migrateCommand,
  'runs list': runsListCommand,
  'runs show': runsShowCommand,
  steps: stepsCommand,
  events: eventsCommand,
};

/** Runs the `cyclone` command with the given arguments; resolves with the exit code. */
export async function main(
  argv: readonly string[],
  output: Output = processOutput,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        'database-url': { type: 'string' },
        schema: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        state: { type: 'string' },
        workflow: { type: 'string' },
        limit: { type: 'string' },
        'data-dir': { type: 'string' },
        keep: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    output.err(`cyclone: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  if (values.help || positionals.length === 0) {
    output.out(USAGE);
    return values.help ? 0 : 2;
  }
  const two = positionals.slice(0, 2).join(' ');
  const [name, command] = COMMANDS[two]
    ? [two, COMMANDS[two]]
    : [positionals[0]!, COMMANDS[positionals[0]!]];
  if (!command) {
    output.err(`cyclone: unknown command "${positionals.join(' ')}"\n\n${USAGE}`);
    return 2;
  }
  const ctx: CommandContext = {
    args: positionals.slice(name.split(' ').length),
    flags: {
      ...(values['database-url'] === undefined ? {} : { databaseUrl: values['database-url'] }),
      ...(values.schema === undefined ? {} : { schema: values.schema }),
      json: values.json,
    },
    options: values,
    output,
  };
  try {
    return await command(ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`cyclone ${name}: ${error.message}`);
      return 2;
    }
    if (isCycloneError(error)) {
      output.err(`cyclone ${name}: ${error.message} [${error.code}]`);
      return 1;
    }
    output.err(
      `cyclone ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return 1;
  }
}
