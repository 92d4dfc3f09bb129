import type { ConcurrencyLimit, RateLimit } from '@cyclone/client';
import { table } from '../terminal/output.js';
import { terminalWidth } from '../terminal/terminal.js';

/** A rate limit's period as listed: a duration as given, milliseconds with their unit. */
export function periodText(period: RateLimit['period']): string {
  return typeof period === 'number' ? `${period}ms` : period;
}

/**
 * Every limit as one table, by kind, caps first: what each allows, whether it counts per
 * concurrency key, and (for a cap) the kind's steps running now and those it holds back.
 */
export function limitsTable(
  concurrency: readonly ConcurrencyLimit[],
  rate: readonly RateLimit[],
): string {
  if (concurrency.length === 0 && rate.length === 0) return 'no limits set';
  const yesNo = (b: boolean) => (b ? 'yes' : 'no');
  return table(
    ['limit', 'kind', 'allows', 'per key', 'running', 'waiting'],
    [
      ...concurrency.map((l) => [
        'concurrency',
        l.kind,
        `${l.max} at once`,
        yesNo(l.perKey),
        String(l.running),
        String(l.waiting),
      ]),
      ...rate.map((l) => [
        'rate',
        l.kind,
        `${l.limit} per ${periodText(l.period)}`,
        yesNo(l.perKey),
        '-',
        '-',
      ]),
    ],
    { width: terminalWidth(), shrink: [1] },
  );
}
