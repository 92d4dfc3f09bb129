import type { FairShareSetting, KindFairShare } from '../contract/fair-share-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { listFairShares as listFairShareRows } from '../tables/fair-shares/list-fair-shares.js';
import { removeFairShare as removeFairShareRow } from '../tables/fair-shares/remove-fair-share.js';
import { setFairShare as setFairShareRow } from '../tables/fair-shares/set-fair-share.js';

/** Most claimable steps of a kind read to count its keys. */
const KeyCountLimit = 100_000;

/** Puts a kind under fair share, or replaces its weights. */
export function setFairShare(db: SqlRunner, setting: FairShareSetting): Promise<void> {
  return setFairShareRow(db, { kind: setting.kind, weightsJson: JSON.stringify(setting.weights) });
}

/** Takes a kind out of fair share; false when it was not under it. */
export function removeFairShare(db: SqlRunner, kind: string): Promise<boolean> {
  return removeFairShareRow(db, { kind });
}

/** Every kind under fair share with its keys that have claimable steps now. */
export async function listFairShares(db: SqlRunner): Promise<KindFairShare[]> {
  const rows = await listFairShareRows(db, { countLimit: KeyCountLimit });
  return rows.map((r) => ({ kind: r.kind, weights: r.weights, keys: r.keys }));
}
