import type { FairShare } from '@cyclone/client';
import { table } from '../terminal/output.js';
import { terminalWidth } from '../terminal/terminal.js';

/** Every kind under fair share as one table: its weights (others 1) and keys with claimable steps. */
export function fairShareTable(fairShares: readonly FairShare[]): string {
  if (fairShares.length === 0) return 'no kind under fair share';
  return table(
    ['kind', 'weights', 'keys waiting'],
    fairShares.map((f) => {
      const named = Object.entries(f.weights).map(([key, n]) => `${key}=${n}`);
      return [f.kind, named.length > 0 ? named.join(', ') : 'all 1', String(f.keys)];
    }),
    { width: terminalWidth(), shrink: [1] },
  );
}
