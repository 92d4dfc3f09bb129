import type pg from 'pg';
import type { Tables } from './tables.js';

/**
 * The placeholders of a statement's parameters: reading `p.stepId` while writing the SQL yields
 * `$1` (the same `$n` every time it is read again), so SQL is written with names and sent with
 * positions.
 */
export type Placeholders<P> = { readonly [K in keyof P]-?: string };

/**
 * One SQL statement, written once against the qualified table names and named parameters. Every
 * value is a bound parameter; nothing user-supplied is ever spliced into the text. `R` is the type
 * of the rows it returns.
 */
export interface Statement<P extends object, R extends pg.QueryResultRow> {
  /** Stable name; with the schema it names the prepared statement on each connection. */
  readonly name: string;
  readonly text: (t: Tables, p: Placeholders<P>) => string;
  /** Only carries `R` for type inference; never set. */
  readonly rowType?: R;
}

/**
 * Declares a statement. One statement a file, the file named after it; the file exports a typed
 * function that runs it (see {@link SqlRunner}).
 *
 * @example
 * ```ts
 * const statement = defineStatement<{ runId: string }, { id: string }>(
 *   'lock-run',
 *   (t, p) => `SELECT id FROM ${t.runs} WHERE id = ${p.runId} FOR UPDATE`,
 * );
 * ```
 */
export function defineStatement<P extends object, R extends pg.QueryResultRow = never>(
  name: string,
  text: (t: Tables, p: Placeholders<P>) => string,
): Statement<P, R> {
  return { name, text };
}

/** A statement compiled for one schema: its prepared-statement name, text and parameter order. */
export interface CompiledStatement {
  readonly name: string;
  readonly text: string;
  /** Parameter names in `$n` order. */
  readonly order: readonly string[];
}

/** Compiles statements for one schema, once per store, and orders a params object for `pg`. */
export class StatementCompiler {
  private readonly cache = new Map<Statement<never, never>, CompiledStatement>();
  constructor(readonly tables: Tables) {}

  compile<P extends object>(statement: Statement<P, pg.QueryResultRow>): CompiledStatement {
    const key = statement as unknown as Statement<never, never>;
    let compiled = this.cache.get(key);
    if (!compiled) {
      const order: string[] = [];
      const placeholders = new Proxy({} as Placeholders<P>, {
        get(_target, property) {
          if (typeof property !== 'string') {
            throw new TypeError(`statement ${statement.name}: parameters are named by strings`);
          }
          let index = order.indexOf(property);
          if (index < 0) index = order.push(property) - 1;
          return `$${index + 1}`;
        },
      });
      const suffix = this.tables.schema === 'public' ? '' : `:${this.tables.schema}`;
      const text = statement.text(this.tables, placeholders);
      compiled = { name: `cyclone:${statement.name}${suffix}`, text, order };
      this.cache.set(key, compiled);
    }
    return compiled;
  }
}

/** The values of a params object in the statement's `$n` order; a missing one is a bug, refused. */
export function orderedValues(compiled: CompiledStatement, params: object): unknown[] {
  return compiled.order.map((name) => {
    const value = (params as Record<string, unknown>)[name];
    if (value === undefined) {
      throw new TypeError(`statement ${compiled.name}: parameter ${name} is missing`);
    }
    return value;
  });
}
