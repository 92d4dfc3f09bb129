import type pg from 'pg';
import type { StoreLogger } from './contract/store-logger.js';
import { processWarningLogger } from './contract/store-logger.js';
import { describePool } from './db/describe-pool.js';
import { toStoreError, type DatabaseTarget } from './db/driver-errors.js';
import { Executor } from './db/executor.js';
import { StatementCompiler } from './db/statement.js';
import { tablesIn, type Tables } from './db/tables.js';
import { defaultMigrationsFolder } from './migration/migrate.js';
import { settleFollowUps } from './settlement/settle-follow-ups.js';
import type { Settled } from './settlement/settled.js';
import type { PostgresStoreOptions } from './store-options.js';

/**
 * What every operation of {@link PostgresStore} runs through: the executor over the pool, the
 * mapping of driver errors to Cyclone's typed errors, and the one after-commit step that settles
 * the runs an operation left in the settlement outbox.
 */
export abstract class StoreBase {
  /** The qualified names of the store's tables. */
  readonly tables: Tables;
  protected readonly pool: pg.Pool;
  protected readonly exec: Executor;
  protected readonly target: DatabaseTarget;
  protected readonly migrationsFolder: string;
  protected readonly logger: StoreLogger;

  constructor(options: PostgresStoreOptions) {
    this.pool = options.pool;
    this.tables = tablesIn(options.schema);
    this.exec = new Executor(this.pool, new StatementCompiler(this.tables), this.pool);
    this.target = {
      description: describePool(options.pool, options.connectionString),
      schema: this.tables.schema,
    };
    this.migrationsFolder = options.migrationsFolder ?? defaultMigrationsFolder();
    this.logger = options.logger ?? processWarningLogger;
  }

  /** Runs one operation and maps whatever the driver threw to a typed error (see `toStoreError`). */
  protected async guard<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toStoreError(error, operation, this.target);
    }
  }

  /**
   * Runs an operation that may leave runs in the settlement outbox, then settles them: the one
   * after-commit step of the store. A settlement that fails there is logged and left to the
   * `settle-pending` scanner; the operation's result stands.
   */
  protected async settled<T>(operation: string, work: () => Promise<Settled<T>>): Promise<T> {
    const { value, followUps } = await this.guard(operation, work);
    if (followUps.length > 0) await settleFollowUps(this.exec, followUps, this.logger);
    return value;
  }
}
