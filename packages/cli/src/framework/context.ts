import type { Output } from '../terminal/output.js';

/** Flags every command understands. */
export interface GlobalFlags {
  readonly databaseUrl?: string;
  readonly schema?: string;
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
