import type { Command } from 'commander';
import type { CommandContext } from './context.js';

/** A command's implementation: resolves with the exit code. */
export type CommandFn = (ctx: CommandContext) => Promise<number>;

/** One option: its flags, its help, and optionally a default or that it is required. */
export interface OptionSpec {
  readonly flags: string;
  readonly description: string;
  readonly default?: string;
  readonly required?: boolean;
}

/**
 * One `cyclone` command as data: everything its registration needs, so that each command is
 * declared once and every command gets `--json`, the database flags and examples the same way.
 */
export interface CommandSpec {
  /** The word after its group (`list` in `cyclone runs list`), or the command (`explain`). */
  readonly name: string;
  readonly description: string;
  /** Positional arguments, `<run>` (required) or `[node]` (optional), with their help. */
  readonly arguments?: readonly (readonly [string, string])[];
  readonly options?: readonly OptionSpec[];
  /**
   * The help of `--json`.
   * @defaultValue `'print JSON'`
   */
  readonly json?: string;
  /**
   * Whether it takes `--database-url`, `--schema`, `--pooler` and `--listen-database-url`.
   * @defaultValue true
   */
  readonly database?: boolean;
  /** Command lines shown under "Examples:" in `--help`. */
  readonly examples: readonly string[];
  /** More help after the examples. */
  readonly more?: string;
  readonly run: CommandFn;
}

/** A command with sub-commands (`cyclone runs list|show|watch`). */
export interface CommandGroup {
  readonly name: string;
  readonly description: string;
  readonly commands: readonly CommandSpec[];
}

/** Turns a parsed command into a call of its implementation, named for error messages. */
export type ActionOf = (name: string, run: CommandFn) => (this: Command) => Promise<void>;

function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}`;
}

/** Registers `spec` under `parent`; `prefix` is its group (`runs `) for the dispatched name. */
export function addCommand(
  parent: Command,
  spec: CommandSpec,
  action: ActionOf,
  prefix = '',
): void {
  const command = parent.command(spec.name).description(spec.description);
  for (const [name, help] of spec.arguments ?? []) command.argument(name, help);
  for (const option of spec.options ?? []) {
    if (option.required) command.requiredOption(option.flags, option.description, option.default);
    else command.option(option.flags, option.description, option.default);
  }
  if (spec.database !== false) {
    command
      .option(
        '--database-url <url>',
        'the database (default: $CYCLONE_DATABASE_URL, else $DATABASE_URL)',
      )
      .option('--schema <name>', "Postgres schema of Cyclone's tables (default: public)")
      .option(
        '--pooler <mode>',
        'transaction: the URL goes through a pooler in transaction mode (PgBouncer, Supavisor, RDS Proxy); none: direct or session mode (default: $CYCLONE_POOLER, else none)',
      )
      .option(
        '--listen-database-url <url>',
        'a direct URL to LISTEN on for wake-ups behind a transaction-mode pooler; without it workers poll (default: $CYCLONE_LISTEN_DATABASE_URL)',
      );
  }
  command
    .option('--json', spec.json ?? 'print JSON')
    .addHelpText('after', `${examples(spec.examples)}${spec.more ? `\n\n${spec.more}` : ''}`)
    .action(action(`${prefix}${spec.name}`, spec.run));
}

/** Registers a group and its sub-commands. */
export function addGroup(parent: Command, group: CommandGroup, action: ActionOf): void {
  const names = group.commands.map((c) => c.name).join('|');
  const command = parent
    .command(group.name)
    .description(group.description)
    .usage(`<${names}> [arguments] [options]`);
  for (const spec of group.commands) addCommand(command, spec, action, `${group.name} `);
}
