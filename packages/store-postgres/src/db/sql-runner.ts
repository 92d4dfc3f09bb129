import type pg from 'pg';
import { orderedValues, type Statement, type StatementCompiler } from './statement.js';
import type { Queryable } from '../contract/queryable.js';
import type { Tables } from './tables.js';
import { withTransaction } from './transaction.js';
import { retryOnConflict } from './retry.js';

/**
 * Runs Cyclone's statements, by default as named prepared statements: Postgres parses and plans
 * each one once per connection, which matters on the hot paths (claim, complete) that run
 * thousands of times a second. Behind a pooler in transaction mode a named statement prepared on
 * one server session is missing on the next (or already exists there), so with `prepared: false`
 * every statement is sent unnamed, parsed and planned at each execution; its text is still built
 * once per store (the compiler's cache). Every store operation takes a runner; on a pool it can
 * also open transactions.
 */
/**
 * Why a child workflow's input schema refuses a child run's input (a message naming each issue),
 * or undefined when it fits or the checker knows no schema of the workflow.
 */
export type ChildInputCheck = (workflow: string, input: unknown) => Promise<string | undefined>;

export class SqlRunner {
  constructor(
    readonly db: Queryable,
    private readonly compiler: StatementCompiler,
    private readonly pool?: pg.Pool,
    /** Whether statements are sent as named prepared statements (see the class comment). */
    readonly prepared = true,
    /** Checks a child run's input before it is started (the store's `childInputCheck`). */
    readonly childInputCheck?: ChildInputCheck,
  ) {}

  /** The qualified table names the statements are compiled against. */
  get tables(): Tables {
    return this.compiler.tables;
  }

  /** Runs a statement with named parameters; resolves with its rows. */
  async rows<P extends object, R extends pg.QueryResultRow>(
    statement: Statement<P, R>,
    params: P,
  ): Promise<R[]> {
    return (await this.run(statement, params)).rows;
  }

  /** The first row of a statement, or undefined. */
  async one<P extends object, R extends pg.QueryResultRow>(
    statement: Statement<P, R>,
    params: P,
  ): Promise<R | undefined> {
    return (await this.rows(statement, params))[0];
  }

  /** The number of rows a statement affected. */
  async count<P extends object>(
    statement: Statement<P, pg.QueryResultRow>,
    params: P,
  ): Promise<number> {
    return (await this.run(statement, params)).rowCount ?? 0;
  }

  /** Runs a single statement again when Postgres aborted it for a deadlock. */
  retrying<T>(work: (exec: SqlRunner) => Promise<T>): Promise<T> {
    return retryOnConflict(() => work(this));
  }

  /**
   * Runs `work` in a transaction (retried on deadlocks, see `withTransaction`), with a runner on
   * the transaction's client. Only a runner on a pool opens transactions.
   */
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    if (!this.pool)
      throw new TypeError('this SQL runner runs on a client and cannot open a transaction');
    return withTransaction(this.pool, (client) => work(this.on(client)));
  }

  /** The same runner on another connection (a transaction's client, a caller's transaction). */
  on(db: Queryable): SqlRunner {
    return new SqlRunner(db, this.compiler, undefined, this.prepared, this.childInputCheck);
  }

  private async run<P extends object, R extends pg.QueryResultRow>(
    statement: Statement<P, R>,
    params: P,
  ): Promise<pg.QueryResult<R>> {
    const compiled = this.compiler.compile(statement);
    return this.db.query<R>({
      ...(this.prepared ? { name: compiled.name } : {}),
      text: compiled.text,
      values: orderedValues(compiled, params),
    });
  }
}

export type { Queryable } from '../contract/queryable.js';
