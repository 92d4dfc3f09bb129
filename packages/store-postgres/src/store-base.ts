import type pg from 'pg';
import type { StoreLogger } from './contract/store-logger.js';
import { processWarningLogger } from './contract/store-logger.js';
import { describePool } from './db/describe-pool.js';
import { toStoreError, type DatabaseTarget } from './db/driver-errors.js';
import { SqlRunner } from './db/sql-runner.js';
import { poolerModeOf, type PoolerMode } from './db/pooler.js';
import { StatementCompiler } from './db/statement.js';
import { tablesIn, type Tables } from './db/tables.js';
import { defaultMigrationsFolder } from './migration/migrate.js';
import { settleAfterCommit } from './settlement/settle-after-commit.js';
import { WorkFailure } from './db/work-failure.js';
import type { WithFollowUps } from './settlement/settle-after-commit.js';
import type { PostgresStoreOptions } from './store-options.js';

/**
 * What every operation of {@link PostgresStore} runs through: the SQL runner over the pool, the
 * mapping of driver errors to Cyclone's typed errors, and the one after-commit step that settles
 * the runs an operation left in the settlement outbox.
 */
export abstract class StoreBase {
  /** The qualified names of the store's tables. */
  readonly tables: Tables;
  /** What stands between the store's pool and PostgreSQL. */
  readonly pooler: PoolerMode;
  protected readonly pool: pg.Pool;
  /** Where transactional completions open their transactions (`transactionPool`). */
  protected readonly transactionPool: pg.Pool;
  /** Where `subscribe` LISTENs; none behind a transaction-mode pooler without a listen pool. */
  protected readonly listenPool: pg.Pool | undefined;
  protected readonly exec: SqlRunner;
  protected readonly target: DatabaseTarget;
  /** The listen pool's, for its errors; the main pool's when they are the same. */
  protected readonly listenTarget: DatabaseTarget;
  protected readonly migrationsFolder: string;
  protected readonly logger: StoreLogger;

  constructor(options: PostgresStoreOptions) {
    this.pool = options.pool;
    this.transactionPool = options.transactionPool ?? options.pool;
    this.tables = tablesIn(options.schema);
    this.pooler = poolerModeOf(options.pooler, 'store options');
    // Behind a transaction-mode pooler: no named statements, and LISTEN only on a pool of its own.
    const direct = this.pooler !== 'transaction';
    this.listenPool = options.listenPool ?? (direct ? this.pool : undefined);
    this.exec = new SqlRunner(
      this.pool,
      new StatementCompiler(this.tables),
      this.pool,
      direct,
      options.childInputCheck,
    );
    const { schema } = this.tables;
    this.target = { description: describePool(options.pool, options.connectionString), schema };
    this.listenTarget = options.listenPool
      ? { description: describePool(options.listenPool, options.listenConnectionString), schema }
      : this.target;
    this.migrationsFolder = options.migrationsFolder ?? defaultMigrationsFolder();
    this.logger = options.logger ?? processWarningLogger;
  }

  /**
   * Runs one operation and maps whatever the driver threw to a typed error (see `toStoreError`);
   * what the application's own code threw inside it (a {@link WorkFailure}) is handed on unchanged.
   */
  protected async guard<T>(
    operation: string,
    work: () => Promise<T>,
    target: DatabaseTarget = this.target,
  ): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof WorkFailure) throw error.error;
      throw toStoreError(error, operation, target);
    }
  }

  /**
   * Runs an operation that may leave runs in the settlement outbox, then settles them: the one
   * after-commit step of the store. A settlement that fails there is logged and left to the
   * `settle-pending` scanner; the operation's result stands.
   */
  protected async guardAndSettle<T>(
    operation: string,
    work: () => Promise<WithFollowUps<T>>,
  ): Promise<T> {
    const { value, followUps } = await this.guard(operation, work);
    if (followUps.length > 0) await settleAfterCommit(this.exec, followUps, this.logger);
    return value;
  }
}
