import type pg from 'pg';
import { type QueryCompiler, type QueryDefinition } from './query.js';

/** Anything that runs a query: a pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/**
 * Runs Cyclone's queries as named prepared statements: Postgres parses and plans each one once per
 * connection, which matters on the hot paths (claim, complete) that run thousands of times a second.
 */
export class Executor {
  constructor(
    readonly db: Queryable,
    private readonly compiler: QueryCompiler,
  ) {}

  async rows<R extends pg.QueryResultRow>(query: QueryDefinition, values: unknown[]): Promise<R[]> {
    const compiled = this.compiler.compile(query);
    const result = await this.db.query<R>({ name: compiled.name, text: compiled.text, values });
    return result.rows;
  }

  async one<R extends pg.QueryResultRow>(
    query: QueryDefinition,
    values: unknown[],
  ): Promise<R | undefined> {
    return (await this.rows<R>(query, values))[0];
  }

  async count(query: QueryDefinition, values: unknown[]): Promise<number> {
    const compiled = this.compiler.compile(query);
    const result = await this.db.query({ name: compiled.name, text: compiled.text, values });
    return result.rowCount ?? 0;
  }

  /** The same executor on another connection (a transaction's client). */
  on(db: Queryable): Executor {
    return new Executor(db, this.compiler);
  }
}
