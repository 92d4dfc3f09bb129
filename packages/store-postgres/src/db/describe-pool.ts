import type pg from 'pg';
import { redactUrl } from './driver-errors.js';

/** Where a pool connects, for error messages, without a password. */
export function describePool(pool: pg.Pool, connectionString?: string): string {
  if (connectionString) return redactUrl(connectionString);
  const o = (pool as { options?: Partial<pg.PoolConfig> }).options ?? {};
  if (typeof o.connectionString === 'string') return redactUrl(o.connectionString);
  const host = typeof o.host === 'string' ? o.host : 'localhost';
  return `postgres://${o.user ?? ''}${o.user ? '@' : ''}${host}:${o.port ?? 5432}/${o.database ?? ''}`;
}
