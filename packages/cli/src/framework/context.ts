import type { Output } from '../terminal/output.js';

/** Flags every command understands. */
export interface GlobalFlags {
  readonly databaseUrl?: string;
  readonly schema?: string;
  /** `--pooler`, as given (see `poolerOptions`). */
  readonly pooler?: string;
  /** `--listen-database-url`, as given. */
  readonly listenDatabaseUrl?: string;
  readonly json: boolean;
}

/** What a command receives. */
export interface CommandContext {
  readonly args: readonly string[];
  readonly flags: GlobalFlags;
  /** Every option the parser read, camel-cased (`--data-dir` is `dataDir`). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly output: Output;
}
