import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { claimableKeysCount } from './claimable-keys.js';

/** How far the list counts a kind's keys. */
export interface ListFairSharesParams {
  /** Most claimable steps of a kind read to count its keys (the first to be claimed). */
  countLimit: number;
}

/** A kind under fair share with its keys that have claimable steps. */
export interface FairShareRow {
  kind: string;
  weights: Record<string, number>;
  keys: number;
}

/**
 * Every kind under fair share, by kind, with the number of concurrency keys among its claimable
 * steps: read in the claim index's order, at most `countLimit` steps a kind.
 */
const statement = defineStatement<ListFairSharesParams, FairShareRow>(
  'list-fair-shares',
  (t, p) => `
SELECT f.kind, f.weights, ${claimableKeysCount(t, 'f.kind', p.countLimit)} AS keys
FROM ${t.fairShares} f
ORDER BY f.kind
`,
);

/** Reads every kind under fair share (see the statement). */
export function listFairShares(db: SqlRunner, p: ListFairSharesParams): Promise<FairShareRow[]> {
  return db.rows(statement, p);
}
