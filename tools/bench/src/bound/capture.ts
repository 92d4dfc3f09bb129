/**
 * Records the named (prepared) statements a system sends while it runs, text and values, so the
 * SQL bound replays each system's own statements, as shipped, rather than a copy of them.
 */
import pg from 'pg';

/** One statement as the system sent it. */
export interface CapturedStatement {
  readonly name: string;
  readonly text: string;
  readonly values: readonly unknown[];
}

type QueryFn = (this: pg.Client, ...args: unknown[]) => unknown;

/**
 * Runs `work` while every `pg.Client` of this process reports its named statements; returns the
 * last one sent under each name that `wanted` accepts. Both systems under test use the one `pg`
 * module of the workspace, so one patch of its prototype sees all of their connections.
 */
export async function captureStatements(
  wanted: (name: string) => boolean,
  work: () => Promise<void>,
): Promise<Map<string, CapturedStatement>> {
  const seen = new Map<string, CapturedStatement>();
  const proto = pg.Client.prototype as unknown as { query: QueryFn };
  const original = proto.query;
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as { name?: unknown; text?: unknown; values?: unknown } | undefined;
    if (config && typeof config === 'object' && typeof config.name === 'string') {
      if (wanted(config.name) && typeof config.text === 'string') {
        const values = Array.isArray(config.values)
          ? config.values
          : Array.isArray(args[1])
            ? (args[1] as unknown[])
            : [];
        seen.set(config.name, { name: config.name, text: config.text, values: [...values] });
      }
    }
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    proto.query = original;
  }
  return seen;
}

/** A bound value as PostgreSQL reads it in text form (what pgbench sends for a variable). */
export function textValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    const element = (e: unknown): string =>
      e === null || e === undefined
        ? 'NULL'
        : `"${textValue(e).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    return `{${value.map(element).join(',')}}`;
  }
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  throw new Error(`sql bound: cannot pass a ${typeof value} to pgbench`);
}
