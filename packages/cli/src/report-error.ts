import { isCycloneError } from '@cyclone/core';
import {
  classifyDatabaseError,
  connectionFailureReason,
  DatabaseFailure,
} from '@cyclone/store-postgres';
import { CommanderError } from 'commander';
import { RefusedError, UsageError } from './framework/cli-error.js';
import { ExitCode } from './framework/exit-codes.js';
import type { Output } from './terminal/output.js';

/** What a failed command reports: a stable code, one message, the exit code. */
export interface ErrorReport {
  readonly code: string;
  readonly message: string;
  readonly exitCode: ExitCode;
  /** The rule's rejection reason of a refused operator action. */
  readonly reason?: string;
}

const usageHint =
  'usage: cyclone <command> [arguments] [options]\n' +
  'run `cyclone --help` for the commands, `cyclone <command> --help` for one';

/** Classifies an error a command threw (or the parser raised) into an {@link ErrorReport}. */
export function errorReport(error: unknown): ErrorReport {
  if (error instanceof CommanderError) {
    // "error: unknown command 'x'\n(Did you mean y?)": our own voice, double quotes.
    const message = error.message.replace(/^error: /, '').replace(/'([^']*)'/g, '"$1"');
    return { code: 'USAGE', message, exitCode: ExitCode.Usage };
  }
  if (error instanceof UsageError) {
    return { code: 'USAGE', message: error.message, exitCode: ExitCode.Usage };
  }
  // Before the Cyclone check: a connection failure is exit 4 whoever reported it.
  if (classifyDatabaseError(error) === DatabaseFailure.Connection) {
    return {
      code: 'DATABASE_UNREACHABLE',
      message: isCycloneError(error, 'DATABASE_UNREACHABLE')
        ? error.message
        : `cannot reach the database: ${connectionFailureReason(error)}`,
      exitCode: ExitCode.DatabaseUnreachable,
    };
  }
  if (error instanceof RefusedError) {
    return { code: error.code, message: error.message, exitCode: ExitCode.Refused };
  }
  if (isCycloneError(error, 'NOT_FOUND')) {
    return {
      code: error.code,
      message: `${error.message} [${error.code}]`,
      exitCode: ExitCode.NotFound,
    };
  }
  if (isCycloneError(error)) {
    // A refused operator action names the rule's reason (terminal, same-state, ...).
    const reason = error.reason === undefined ? '' : ` (reason: ${error.reason})`;
    return {
      code: error.code,
      message: `${error.message}${reason} [${error.code}]`,
      exitCode: ExitCode.Refused,
      ...(error.reason === undefined ? {} : { reason: error.reason }),
    };
  }
  // Unexpected: keep the stack, it is what a bug report needs.
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: 'INTERNAL', message, exitCode: ExitCode.Refused };
}

/** Prints the error (as `{ "error": { code, message } }` under `--json`) and returns its exit code. */
export function reportError(
  error: unknown,
  where: { readonly command: string; readonly json: boolean; readonly output: Output },
): ExitCode {
  const report = errorReport(error);
  if (where.json) {
    const message = report.message.replace(/ \[[A-Z_]+\]$/, '');
    const reason = report.reason === undefined ? {} : { reason: report.reason };
    where.output.err(JSON.stringify({ error: { code: report.code, ...reason, message } }));
    return report.exitCode;
  }
  const prefix = where.command ? `cyclone ${where.command}` : 'cyclone';
  const parserError = error instanceof CommanderError;
  where.output.err(`${prefix}: ${report.message}${parserError ? `\n\n${usageHint}` : ''}`);
  return report.exitCode;
}
