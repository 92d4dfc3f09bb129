import { ValidationError } from '@cyclone/core';

/**
 * What stands between Cyclone and PostgreSQL:
 *
 * - `'none'`: a direct connection, or a pooler in session mode (a client keeps one server session
 *   for as long as it is connected, so anything a session allows works).
 * - `'transaction'`: a pooler in transaction mode (PgBouncer `pool_mode = transaction`, Supavisor
 *   on its transaction port, RDS Proxy): consecutive transactions of one client may run on
 *   different server sessions, so Cyclone sends no named prepared statements and keeps no session
 *   state, and LISTENs only on `listenConnectionString` (polling without it).
 */
export type PoolerMode = 'none' | 'transaction';

/** Every {@link PoolerMode}, as the options and the CLI accept them. */
export const PoolerModes: readonly PoolerMode[] = ['none', 'transaction'];

/**
 * The pooler mode of a store's options, `'none'` when not given.
 *
 * @param subject - what is being configured, for the error message (e.g. `'worker options'`)
 * @throws ValidationError naming `pooler` and the accepted values
 */
export function poolerModeOf(value: unknown, subject: string): PoolerMode {
  if (value === undefined) return 'none';
  if (PoolerModes.includes(value as PoolerMode)) return value as PoolerMode;
  throw new ValidationError(subject, [
    {
      path: 'pooler',
      message: `expected ${PoolerModes.map((m) => `'${m}'`).join(' or ')}, got ${JSON.stringify(value)}`,
    },
  ]);
}
