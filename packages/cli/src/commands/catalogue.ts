import type { CommandGroup, CommandSpec } from '../framework/command-spec.js';
import { devCommand } from './dev.js';
import { dlqListCommand, dlqRedriveCommand } from './dlq.js';
import { eventsCommand } from './events.js';
import { explainCommand } from './explain.js';
import { limitsListCommand, limitsRemoveCommand, limitsSetCommand } from './limits.js';
import { fairShareListCommand, fairShareRemoveCommand, fairShareSetCommand } from './fair-share.js';
import { migrateCommand } from './migrate.js';
import { cancelCommand, pauseCommand, resumeCommand, retryCommand } from './run-controls.js';
import { runsListCommand } from './runs-list.js';
import { runsShowCommand } from './runs-show.js';
import { runsWatchCommand } from './runs-watch.js';
import {
  schedulesBackfillCommand,
  schedulesDeleteCommand,
  schedulesListCommand,
  schedulesShowCommand,
  schedulesToggleCommand,
} from './schedules.js';
import { schedulerCommand } from './scheduler.js';
import { retentionOptions } from './scheduler-options.js';
import { serveCommand } from './serve.js';
import { signalCommand } from './signal.js';
import { forceCommand } from './force.js';
import { stepsCommand } from './steps.js';
import { workerCommand } from './worker.js';

const RUN = '0193c1a2-7d3e-7000-8a1b-2f3c4d5e6f70';
const run: readonly [string, string] = ['<run>', 'run id'];
const schedule: readonly [string, string] = ['<id>', 'schedule id'];
const reason = {
  flags: '--reason <kind>',
  description: 'retryable, permanent, deadline or reclaim_limit',
};
const workflow = { flags: '--workflow <name>', description: 'only steps of runs of this workflow' };

/** A command that takes one run id and acts on the run (cancel, pause, resume). */
function runControl(name: string, description: string, run_: CommandSpec['run']): CommandSpec {
  return { name, description, arguments: [run], examples: [`cyclone ${name} ${RUN}`], run: run_ };
}

const runs: CommandGroup = {
  name: 'runs',
  description: 'list runs, show one as a graph, or watch one live',
  commands: [
    {
      name: 'list',
      description: 'list runs, newest first, one page at a time',
      options: [
        { flags: '--state <states>', description: 'only runs in these states (comma-separated)' },
        { flags: '--workflow <name>', description: 'only runs of this workflow' },
        {
          flags: '--since <time>',
          description: 'only runs created at or after this time (ISO 8601, or a duration ago: 1h)',
        },
        {
          flags: '--until <time>',
          description: 'only runs created before this time (ISO 8601, or a duration ago: 10m)',
        },
        { flags: '--parent <run>', description: 'only the child runs of this run' },
        { flags: '--limit <n>', description: 'at most this many runs (1 to 1000)', default: '50' },
        {
          flags: '--cursor <cursor>',
          description: 'the next page: the cursor a previous page printed',
        },
      ],
      json: 'print the page as JSON ({ runs, nextCursor })',
      examples: [
        'cyclone runs list',
        'cyclone runs list --state failed,cancelled --workflow order --limit 20',
        'cyclone runs list --since 1h --until 10m',
        `cyclone runs list --parent ${RUN}`,
        'cyclone runs list --limit 100 --cursor WyIyMDI2LTEy...',
        'cyclone runs list --json | jq -r ".runs[].id"',
      ],
      run: runsListCommand,
    },
    {
      name: 'show',
      description: "show one run: its counters and its graph, each node's state, attempts, timing",
      arguments: [run],
      json: 'print the run with its steps as JSON',
      examples: [`cyclone runs show ${RUN}`, `cyclone runs show ${RUN} --json`],
      run: runsShowCommand,
    },
    {
      name: 'watch',
      description:
        'follow a run live until it ends: exit 0 when it completed, 1 when it failed or was cancelled',
      arguments: [run],
      options: [
        {
          flags: '--interval <duration>',
          description: 'how often to look when no notification came',
          default: '500ms',
        },
      ],
      json: 'print one JSON line per change',
      examples: [`cyclone runs watch ${RUN}`, `cyclone runs watch ${RUN} --json | jq .type`],
      run: runsWatchCommand,
    },
  ],
};

const dlq: CommandGroup = {
  name: 'dlq',
  description: 'the dead-letter queue: discarded steps',
  commands: [
    {
      name: 'list',
      description: 'list discarded steps, newest first',
      options: [
        reason,
        workflow,
        { flags: '--limit <n>', description: 'at most this many steps', default: '50' },
      ],
      examples: ['cyclone dlq list --reason deadline', 'cyclone dlq list --json'],
      run: dlqListCommand,
    },
    {
      name: 'redrive',
      description: 'retry every matching discarded step',
      options: [
        reason,
        workflow,
        {
          flags: '--before <time>',
          description: 'only steps discarded before this time (ISO 8601)',
        },
        { flags: '--limit <n>', description: 'at most this many steps' },
      ],
      examples: [
        'cyclone dlq redrive --reason reclaim_limit',
        'cyclone dlq redrive --workflow order --before 2026-01-01T00:00:00Z',
      ],
      run: dlqRedriveCommand,
    },
  ],
};

const which: readonly [string, string] = ['<which>', 'concurrency or rate'];
const kind: readonly [string, string] = ['<kind>', 'handler kind'];

const limits: CommandGroup = {
  name: 'limits',
  description: 'list, set or remove the concurrency caps and rate limits of handler kinds',
  commands: [
    {
      name: 'list',
      description:
        'list every concurrency cap (with the steps running and waiting on it) and rate limit',
      json: 'print { concurrency, rate } as JSON',
      examples: ['cyclone limits list', 'cyclone limits list --json'],
      run: limitsListCommand,
    },
    {
      name: 'set',
      description:
        "create or replace a kind's concurrency cap or rate limit (its other limit stays); every worker obeys it at its next claim",
      arguments: [which, kind],
      options: [
        { flags: '--max <n>', description: 'concurrency: most steps of the kind running at once' },
        { flags: '--limit <n>', description: 'rate: most steps of the kind started per period' },
        {
          flags: '--period <duration>',
          description: 'rate: the sliding window, milliseconds or a duration (500ms, 2s, 1m, 1h)',
        },
        {
          flags: '--per-key',
          description: 'count per concurrency key (steps without a key form one group)',
        },
      ],
      json: 'print the limit as set',
      examples: [
        'cyclone limits set concurrency payments.charge --max 5',
        'cyclone limits set concurrency emails.send --max 1 --per-key',
        'cyclone limits set rate crm.call --limit 100 --period 1m',
      ],
      run: limitsSetCommand,
    },
    {
      name: 'remove',
      description: "remove a kind's concurrency cap or rate limit: exit 3 when it has none",
      arguments: [which, kind],
      examples: [
        'cyclone limits remove concurrency payments.charge',
        'cyclone limits remove rate crm.call',
      ],
      run: limitsRemoveCommand,
    },
  ],
};

const fairShare: CommandGroup = {
  name: 'fair-share',
  description: 'list, set or remove fair share between the concurrency keys of handler kinds',
  commands: [
    {
      name: 'list',
      description: 'list every kind under fair share, with its weights and keys with steps waiting',
      json: 'print { fairShares } as JSON',
      examples: ['cyclone fair-share list', 'cyclone fair-share list --json'],
      run: fairShareListCommand,
    },
    {
      name: 'set',
      description:
        'put a kind under fair share or replace its weights: its keys take turns, each up to its weight a turn; every worker obeys it at its next claim',
      arguments: [kind],
      options: [
        {
          flags: '--weights <pairs>',
          description: 'key=weight pairs separated by commas (1 to 1000; keys not named weigh 1)',
        },
      ],
      json: 'print the fair share as set',
      examples: [
        'cyclone fair-share set reports.render',
        'cyclone fair-share set reports.render --weights tenant-a=3,tenant-b=2',
      ],
      run: fairShareSetCommand,
    },
    {
      name: 'remove',
      description:
        'take a kind out of fair share (oldest first again): exit 3 when it is not under it',
      arguments: [kind],
      examples: ['cyclone fair-share remove reports.render'],
      run: fairShareRemoveCommand,
    },
  ],
};

const schedules: CommandGroup = {
  name: 'schedules',
  description: 'list, show, pause, resume, delete or backfill cron schedules',
  commands: [
    {
      name: 'list',
      description: 'list schedules with their next run and failures',
      examples: ['cyclone schedules list', 'cyclone schedules list --json'],
      run: schedulesListCommand,
    },
    {
      name: 'show',
      description:
        'show one schedule and its newest fires (Late: handled over 15 s after its tick)',
      arguments: [schedule],
      examples: ['cyclone schedules show nightly-report'],
      run: schedulesShowCommand,
    },
    {
      name: 'pause',
      description: 'disable a schedule',
      arguments: [schedule],
      examples: ['cyclone schedules pause nightly-report'],
      run: schedulesToggleCommand(false),
    },
    {
      name: 'resume',
      description: 'enable a schedule at its next tick (ticks passed while paused do not fire)',
      arguments: [schedule],
      examples: ['cyclone schedules resume nightly-report'],
      run: schedulesToggleCommand(true),
    },
    {
      name: 'delete',
      description:
        'delete a schedule and the record of its fires: no fire follows; the runs it started stay',
      arguments: [schedule],
      json: 'print the deleted schedule as JSON',
      examples: ['cyclone schedules delete nightly-report'],
      run: schedulesDeleteCommand,
    },
    {
      name: 'backfill',
      description: 'start one run for every past tick in [--from, --to) that has none',
      arguments: [schedule],
      options: [
        { flags: '--from <time>', description: 'first tick included (ISO 8601)', required: true },
        {
          flags: '--to <time>',
          description: 'end of the range, excluded (ISO 8601, not in the future)',
          required: true,
        },
      ],
      examples: [
        'cyclone schedules backfill nightly-report --from 2026-03-01T00:00:00Z --to 2026-03-08T00:00:00Z',
      ],
      run: schedulesBackfillCommand,
    },
  ],
};

/** Every `cyclone` command, in the order `cyclone --help` lists them. */
export const commandCatalogue: readonly (CommandSpec | CommandGroup)[] = [
  {
    name: 'dev',
    description:
      'start an embedded PostgreSQL, a worker, the scheduler and the dashboard, and run the sample workflow live',
    options: [
      {
        flags: '--data-dir <dir>',
        description: 'data folder of the embedded PostgreSQL',
        default: '.cyclone/dev-db',
      },
      {
        flags: '--keep',
        description: 'keep the engine and the dashboard running after the sample run, until Ctrl-C',
      },
      {
        flags: '--port <n>',
        description: 'port of the dashboard and the HTTP API on 127.0.0.1 (0 picks a free one)',
        default: '7300',
      },
      { flags: '--no-dashboard', description: 'serve neither the dashboard nor the HTTP API' },
    ],
    json: 'print errors as JSON',
    examples: [
      'cyclone dev',
      'cyclone dev --keep',
      'cyclone dev --keep --port 7301',
      'cyclone dev --no-dashboard',
      'cyclone dev --data-dir /tmp/cyclone-db',
      'cyclone dev --database-url postgres://postgres@localhost:5432/app',
    ],
    run: devCommand,
  },
  {
    name: 'migrate',
    description: "apply Cyclone's migrations, or list applied and pending ones (--status)",
    options: [
      { flags: '--status', description: 'list applied and pending migrations; change nothing' },
    ],
    examples: [
      'cyclone migrate --database-url postgres://postgres@localhost:5432/app',
      'CYCLONE_DATABASE_URL=postgres://localhost/app cyclone migrate --status',
    ],
    run: migrateCommand,
  },
  runs,
  {
    name: 'steps',
    description: "list a run's steps with their states and labels",
    arguments: [run],
    examples: [`cyclone steps ${RUN}`, `cyclone steps ${RUN} --json`],
    run: stepsCommand,
  },
  {
    name: 'explain',
    description: 'say why a node is in its state and what would move it',
    arguments: [run, ['<node>', 'node name, node[index] for an item task, or a step id']],
    examples: [
      `cyclone explain ${RUN} ship`,
      `cyclone explain ${RUN} pack[3]`,
      `cyclone explain ${RUN} charge --json`,
    ],
    run: explainCommand,
  },
  {
    name: 'events',
    description: "list a run's events in order, with their sub-state labels",
    arguments: [run],
    examples: [`cyclone events ${RUN}`, `cyclone events ${RUN} --json`],
    run: eventsCommand,
  },
  {
    name: 'signal',
    description: 'send a signal to a run (kept until a node waits for it)',
    arguments: [run, ['<name>', 'signal name'], ['[json]', 'the payload, as JSON (default null)']],
    options: [
      { flags: '--id <id>', description: 'signal id: the same id twice is delivered once' },
    ],
    json: 'print the receipt as JSON',
    examples: [
      `cyclone signal ${RUN} approved '{"by":"ann"}'`,
      `cyclone signal ${RUN} vote '"yes"' --id vote-ann`,
    ],
    run: signalCommand,
  },
  runControl('cancel', 'cancel a running or paused run and its open steps', cancelCommand),
  runControl('pause', 'pause a running run: nothing new starts until resume', pauseCommand),
  runControl('resume', 'resume a paused run', resumeCommand),
  {
    name: 'retry',
    description: 'retry a discarded node of a run, or every one with --all',
    arguments: [run, ['[node]', 'node name or step id']],
    options: [{ flags: '--all', description: 'retry every discarded node of the run' }],
    examples: [`cyclone retry ${RUN} charge`, `cyclone retry ${RUN} --all`],
    run: retryCommand,
  },
  {
    name: 'force',
    description: 'move a node by hand to completed, discarded or cancelled (recorded forced)',
    arguments: [run, ['<node>', 'node name']],
    options: [
      { flags: '--to <state>', description: 'completed, discarded or cancelled' },
      { flags: '--output <json>', description: 'the output of a completion, as JSON' },
      { flags: '--reason <text>', description: 'why (recorded on the event)' },
    ],
    json: 'print the move as JSON',
    examples: [
      `cyclone force ${RUN} charge --to completed --output '{"id":"ch_1"}' --reason 'charged by hand'`,
      `cyclone force ${RUN} ship --to cancelled --reason 'picked up in store'`,
    ],
    run: forceCommand,
  },
  dlq,
  schedules,
  limits,
  fairShare,
  {
    name: 'worker',
    description: 'run a worker process on the handlers a module exports',
    options: [
      {
        flags: '--handlers <module>',
        description: 'module exporting `handlers` (and optionally `workflows`)',
        required: true,
      },
      { flags: '--concurrency <n>', description: 'steps executed at once', default: '10' },
      { flags: '--scheduler', description: 'also run the scheduler in this process' },
      ...retentionOptions.map((option) => ({
        ...option,
        description: `with --scheduler: ${option.description}`,
      })),
      {
        flags: '--grace <duration>',
        description: 'how long in-flight steps may finish at shutdown',
        default: '10s',
      },
    ],
    json: 'print the ready and stop lines as JSON',
    examples: [
      'cyclone worker --handlers ./dist/handlers.js',
      'cyclone worker --handlers ./handlers.js --concurrency 20 --scheduler --grace 30s',
      'cyclone worker --handlers ./handlers.js --scheduler --retention 30d',
    ],
    more: `The module exports \`handlers\` (kind -> async function) and optionally \`workflows\`
(built definitions, for child runs). SIGTERM or Ctrl-C stops claiming and lets in-flight steps
finish for the grace period, then releases them; a second signal stops at once.`,
    run: workerCommand,
  },
  {
    name: 'scheduler',
    description: 'run a scheduler process: the time-driven scanners, one leader among replicas',
    options: [
      {
        flags: '--interval <duration>',
        description: 'how often the scanners run (default: $CYCLONE_SCHEDULER_INTERVAL, else 1s)',
      },
      ...retentionOptions,
    ],
    json: 'print the ready and stop lines as JSON',
    examples: [
      'cyclone scheduler',
      'cyclone scheduler --interval 2s --retention 30d',
      'cyclone scheduler --pooler transaction --retention off',
    ],
    more: `Run one or more replicas beside the workers: one leads at a time and runs the scanners
(lease reclaim, timers and waits, cron schedules, run deadlines, retention, ...). SIGTERM or
Ctrl-C stops scanning and gives up the leader lease at once, so another replica takes over at its
next interval; a second signal exits at once (128 + the signal number), and the lease lapses
within five intervals.`,
    run: schedulerCommand,
  },
  {
    name: 'serve',
    description: 'serve the HTTP API and the dashboard',
    options: [
      {
        flags: '--port <n>',
        description: 'port to listen on (0 picks a free one)',
        default: '7300',
      },
      {
        flags: '--host <host>',
        description: 'address to bind; any but loopback needs --token',
        default: '127.0.0.1',
      },
      {
        flags: '--token <token>',
        description: 'require `Authorization: Bearer <token>` (default: $CYCLONE_TOKEN)',
      },
      {
        flags: '--read-only-token <token>',
        description: 'a second token that may only read (default: $CYCLONE_READ_ONLY_TOKEN)',
      },
      {
        flags: '--allowed-host <host...>',
        description:
          "another name the server answers to in the Host header (a proxy's, a DNS name): " +
          'NAME, NAME:PORT or .DOMAIN; repeatable (default: $CYCLONE_ALLOWED_HOSTS, comma-separated)',
      },
      {
        flags: '--cors-origin <origin...>',
        description:
          'an origin whose pages may call the API (CORS), e.g. https://ops.example.com; ' +
          'repeatable (default: $CYCLONE_CORS_ORIGINS, comma-separated)',
      },
      {
        flags: '--workflows <module>',
        description:
          'a module exporting `workflows` (built definitions, as a --handlers module does): ' +
          'POST /api/runs checks their input schemas, and the API description carries them',
      },
    ],
    json: 'print the serving line as JSON',
    examples: [
      'cyclone serve',
      'cyclone serve --port 8080',
      'CYCLONE_TOKEN=s3cret cyclone serve --host 0.0.0.0 --read-only-token viewer',
      'CYCLONE_TOKEN=s3cret cyclone serve --host 0.0.0.0 --allowed-host cyclone.example.com',
      'cyclone serve --workflows ./dist/workflows.js',
    ],
    more: `The dashboard is at the printed address; \`GET /healthz\` answers 200 once it serves.
With a token, every other request needs it (a browser asks for it: any user name, the token as
the password; changes need it as \`Authorization: Bearer\`, which the dashboard sends itself).
A request whose Host is not the server's address, localhost or an --allowed-host answers 403;
on 0.0.0.0 any IP address with the port is its address, a DNS name needs --allowed-host.
Changes must be JSON (\`Content-Type: application/json\`, an empty body too) and come from no
other origin than the server's own or a --cors-origin. See docs/security.md.
SIGTERM or Ctrl-C stops the server.`,
    run: serveCommand,
  },
];
