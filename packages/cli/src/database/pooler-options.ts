import { PoolerModes, type PoolerMode } from '@cyclone/store-postgres';
import { UsageError } from '../framework/cli-error.js';
import type { GlobalFlags } from '../framework/context.js';

/** The connection options a command passes to its client, worker or scheduler. */
export interface PoolerOptions {
  readonly pooler?: PoolerMode;
  readonly listenConnectionString?: string;
}

/** A flag's value, else the environment variable's, else undefined (empty counts as unset). */
function flagOrEnv(flag: string | undefined, variable: string | undefined): string | undefined {
  for (const value of [flag, variable]) if (value !== undefined && value !== '') return value;
  return undefined;
}

/**
 * `--pooler` (else `CYCLONE_POOLER`) and `--listen-database-url` (else
 * `CYCLONE_LISTEN_DATABASE_URL`) as client, worker and scheduler options. A URL is checked where
 * the options are (it names `listenConnectionString`); a pooler mode here.
 *
 * @throws UsageError for a pooler mode other than `transaction` or `none`, naming where it came from
 */
export function poolerOptions(flags: GlobalFlags, env = process.env): PoolerOptions {
  const pooler = flagOrEnv(flags.pooler, env.CYCLONE_POOLER);
  if (pooler !== undefined && !PoolerModes.includes(pooler as PoolerMode)) {
    const where = flags.pooler ? '--pooler' : 'CYCLONE_POOLER';
    throw new UsageError(
      `${where} expects ${PoolerModes.join(' or ')}, got ${JSON.stringify(pooler)}`,
    );
  }
  const listen = flagOrEnv(flags.listenDatabaseUrl, env.CYCLONE_LISTEN_DATABASE_URL);
  return {
    ...(pooler === undefined ? {} : { pooler: pooler as PoolerMode }),
    ...(listen === undefined ? {} : { listenConnectionString: listen }),
  };
}
