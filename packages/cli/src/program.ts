import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { CommandContext } from './commands/context.js';
import { devCommand } from './commands/dev.js';
import { dlqListCommand, dlqRedriveCommand } from './commands/dlq.js';
import {
  cancelCommand,
  pauseCommand,
  resumeCommand,
  retryCommand,
} from './commands/run-controls.js';
import { eventsCommand } from './commands/events.js';
import { migrateCommand } from './commands/migrate.js';
import { runsListCommand, runsShowCommand } from './commands/runs.js';
import { signalCommand } from './commands/signal.js';
import {
  schedulesBackfillCommand,
  schedulesListCommand,
  schedulesShowCommand,
  schedulesToggleCommand,
} from './commands/schedules.js';
import { serveCommand } from './commands/serve.js';
import { stepsCommand } from './commands/steps.js';
import { workerCommand } from './commands/worker.js';
import type { Output } from './output.js';

/** A command's implementation: resolves with the exit code. */
export type CommandFn = (ctx: CommandContext) => Promise<number>;

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

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}`;
}

/** `--database-url` and `--schema`, for every command that talks to the database. */
function withDatabase(command: Command): Command {
  return command
    .option(
      '--database-url <url>',
      'the database (default: $CYCLONE_DATABASE_URL, else $DATABASE_URL)',
    )
    .option('--schema <name>', "Postgres schema of Cyclone's tables (default: public)");
}

/**
 * The `cyclone` command tree. The parser throws instead of exiting (tests and embedders call
 * {@link main} in-process), and everything it prints goes through `output`.
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

  const action = (name: string, command: CommandFn) =>
    async function (this: Command) {
      const options = this.optsWithGlobals();
      await dispatch(name, command, {
        args: this.args,
        flags: {
          ...(typeof options.databaseUrl === 'string' ? { databaseUrl: options.databaseUrl } : {}),
          ...(typeof options.schema === 'string' ? { schema: options.schema } : {}),
          json: options.json === true,
        },
        options,
        output,
      });
    };

  withDatabase(program.command('dev'))
    .description(
      'start an embedded PostgreSQL, a worker and the scheduler, and run the sample workflow live',
    )
    .option('--data-dir <dir>', 'data folder of the embedded PostgreSQL', '.cyclone/dev-db')
    .option('--keep', 'keep the engine running after the sample run, until Ctrl-C')
    .option('--json', 'print errors as JSON')
    .addHelpText(
      'after',
      examples(
        'cyclone dev',
        'cyclone dev --keep',
        'cyclone dev --data-dir /tmp/cyclone-db',
        'cyclone dev --database-url postgres://postgres@localhost:5432/app',
      ),
    )
    .action(action('dev', devCommand));

  withDatabase(program.command('migrate'))
    .description("apply Cyclone's migrations, or list applied and pending ones (--status)")
    .option('--status', 'list applied and pending migrations; change nothing')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      examples(
        'cyclone migrate --database-url postgres://postgres@localhost:5432/app',
        'CYCLONE_DATABASE_URL=postgres://localhost/app cyclone migrate --status',
      ),
    )
    .action(action('migrate', migrateCommand));

  const runs = program
    .command('runs')
    .description('list runs, or show one')
    .usage('<list|show> [arguments] [options]');
  withDatabase(runs.command('list'))
    .description('list runs, newest first')
    .option('--state <states>', 'only runs in these states (comma-separated)')
    .option('--workflow <name>', 'only runs of this workflow')
    .option('--limit <n>', 'at most this many runs', '50')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      examples(
        'cyclone runs list',
        'cyclone runs list --state failed,cancelled --workflow order --limit 20',
        'cyclone runs list --json | jq -r ".[].id"',
      ),
    )
    .action(action('runs list', runsListCommand));
  withDatabase(runs.command('show'))
    .description('show one run with its counters')
    .argument('<run>', 'run id')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('cyclone runs show 0193c1a2-...'))
    .action(action('runs show', runsShowCommand));

  withDatabase(program.command('steps'))
    .description("list a run's steps with their states and labels")
    .argument('<run>', 'run id')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      examples('cyclone steps 0193c1a2-...', 'cyclone steps 0193c1a2-... --json'),
    )
    .action(action('steps', stepsCommand));

  withDatabase(program.command('events'))
    .description("list a run's events in order")
    .argument('<run>', 'run id')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('cyclone events 0193c1a2-...'))
    .action(action('events', eventsCommand));

  withDatabase(program.command('signal'))
    .description('send a signal to a run (kept until a node waits for it)')
    .argument('<run>', 'run id')
    .argument('<name>', 'signal name')
    .argument('[json]', 'the payload, as JSON (default null)')
    .option('--id <id>', 'signal id: the same id twice is delivered once')
    .option('--json', 'print the receipt as JSON')
    .addHelpText(
      'after',
      examples(
        `cyclone signal 0193c1a2-... approved '{"by":"ann"}'`,
        'cyclone signal 0193c1a2-... vote \'"yes"\' --id vote-ann',
      ),
    )
    .action(action('signal', signalCommand));
  for (const [name, fn, what] of [
    ['cancel', cancelCommand, 'cancel a running or paused run and its open steps'],
    ['pause', pauseCommand, 'pause a running run: nothing new starts until resume'],
    ['resume', resumeCommand, 'resume a paused run'],
  ] as const) {
    withDatabase(program.command(name))
      .description(what)
      .argument('<run>', 'run id')
      .option('--json', 'print JSON')
      .addHelpText('after', examples(`cyclone ${name} 0193c1a2-...`))
      .action(action(name, fn));
  }
  withDatabase(program.command('retry'))
    .description('retry a discarded node of a run, or every one with --all')
    .argument('<run>', 'run id')
    .argument('[node]', 'node name or step id')
    .option('--all', 'retry every discarded node of the run')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      examples('cyclone retry 0193c1a2-... charge', 'cyclone retry 0193c1a2-... --all'),
    )
    .action(action('retry', retryCommand));

  const dlq = program
    .command('dlq')
    .description('the dead-letter queue: discarded steps')
    .usage('<list|redrive> [options]');
  withDatabase(dlq.command('list'))
    .description('list discarded steps, newest first')
    .option('--reason <kind>', 'retryable, permanent, deadline or reclaim_limit')
    .option('--workflow <name>', 'only steps of runs of this workflow')
    .option('--limit <n>', 'at most this many steps', '50')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('cyclone dlq list --reason deadline', 'cyclone dlq list --json'))
    .action(action('dlq list', dlqListCommand));
  withDatabase(dlq.command('redrive'))
    .description('retry every matching discarded step')
    .option('--reason <kind>', 'retryable, permanent, deadline or reclaim_limit')
    .option('--workflow <name>', 'only steps of runs of this workflow')
    .option('--before <time>', 'only steps discarded before this time (ISO 8601)')
    .option('--limit <n>', 'at most this many steps')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      examples(
        'cyclone dlq redrive --reason reclaim_limit',
        'cyclone dlq redrive --workflow order --before 2026-01-01T00:00:00Z',
      ),
    )
    .action(action('dlq redrive', dlqRedriveCommand));

  const schedules = program
    .command('schedules')
    .description('list, show, pause, resume or backfill cron schedules')
    .usage('<list|show|pause|resume|backfill> [arguments] [options]');
  withDatabase(schedules.command('list'))
    .description('list schedules with their next run and failures')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('cyclone schedules list', 'cyclone schedules list --json'))
    .action(action('schedules list', schedulesListCommand));
  withDatabase(schedules.command('show'))
    .description('show one schedule and its newest fires (Late: handled over 15 s after its tick)')
    .argument('<id>', 'schedule id')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('cyclone schedules show nightly-report'))
    .action(action('schedules show', schedulesShowCommand));
  withDatabase(schedules.command('pause'))
    .description('disable a schedule')
    .argument('<id>', 'schedule id')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('cyclone schedules pause nightly-report'))
    .action(action('schedules pause', schedulesToggleCommand(false)));
  withDatabase(schedules.command('resume'))
    .description('enable a schedule at its next tick (ticks passed while paused do not fire)')
    .argument('<id>', 'schedule id')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('cyclone schedules resume nightly-report'))
    .action(action('schedules resume', schedulesToggleCommand(true)));
  withDatabase(schedules.command('backfill'))
    .description('start one run for every past tick in [--from, --to) that has none')
    .argument('<id>', 'schedule id')
    .requiredOption('--from <time>', 'first tick included (ISO 8601)')
    .requiredOption('--to <time>', 'end of the range, excluded (ISO 8601, not in the future)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      examples(
        'cyclone schedules backfill nightly-report --from 2026-03-01T00:00:00Z --to 2026-03-08T00:00:00Z',
      ),
    )
    .action(action('schedules backfill', schedulesBackfillCommand));

  withDatabase(program.command('worker'))
    .description('run a worker process on the handlers a module exports')
    .requiredOption(
      '--handlers <module>',
      'module exporting `handlers` (and optionally `workflows`)',
    )
    .option('--concurrency <n>', 'steps executed at once', '10')
    .option('--scheduler', 'also run the scheduler in this process')
    .option('--grace <duration>', 'how long in-flight steps may finish at shutdown', '10s')
    .option('--json', 'print the ready and stop lines as JSON')
    .addHelpText(
      'after',
      `${examples(
        'cyclone worker --handlers ./dist/handlers.js',
        'cyclone worker --handlers ./handlers.js --concurrency 20 --scheduler --grace 30s',
      )}\n\nThe module exports \`handlers\` (kind -> async function) and optionally \`workflows\`
(built definitions, for child runs). SIGTERM or Ctrl-C stops claiming and lets in-flight steps
finish for the grace period, then releases them; a second signal stops at once.`,
    )
    .action(action('worker', workerCommand));

  withDatabase(program.command('serve'))
    .description('serve the HTTP API and the dashboard')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '7300')
    .option('--host <host>', 'address to bind; any but loopback needs --token', '127.0.0.1')
    .option('--token <token>', 'require `Authorization: Bearer <token>` (default: $CYCLONE_TOKEN)')
    .option(
      '--read-only-token <token>',
      'a second token that may only read (default: $CYCLONE_READ_ONLY_TOKEN)',
    )
    .option('--json', 'print the serving line as JSON')
    .addHelpText(
      'after',
      `${examples(
        'cyclone serve',
        'cyclone serve --port 8080',
        'CYCLONE_TOKEN=s3cret cyclone serve --host 0.0.0.0 --read-only-token viewer',
      )}\n\nThe dashboard is at the printed address; \`GET /healthz\` answers 200 once it serves.
With a token, every other request needs it (a browser asks for it: any user name, the token as
the password). SIGTERM or Ctrl-C stops the server.`,
    )
    .action(action('serve', serveCommand));

  return program;
}
