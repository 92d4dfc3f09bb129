/** Helpers the transition rules' tests share. */
import { DECISION_STEP_ROWS, REFERENCE_STEP_ROWS, type Row } from './reference-rows.js';

export const fromOf = <S extends string>(row: Row): S | null =>
  row[1] === '-' ? null : (row[1] as S);
export const label = (from: string | null) => from ?? '(inserted)';

/** Every (from, to) pair the expected rows allow, as `from>to`. */
export function pairsOf(rows: readonly Row[]): Set<string> {
  return new Set(rows.map((row) => `${row[1]}>${row[2]}`));
}

/** Every (from, to) pair over the states, with `null` (inserted) as a from-state, that no row allows. */
export function absentPairs<S extends string>(
  states: readonly S[],
  rows: readonly Row[],
): [S | null, S][] {
  const present = pairsOf(rows);
  const out: [S | null, S][] = [];
  for (const from of [null, ...states]) {
    for (const to of states) if (!present.has(`${from ?? '-'}>${to}`)) out.push([from, to]);
  }
  return out;
}

export const STEP_ROWS = [...REFERENCE_STEP_ROWS, ...DECISION_STEP_ROWS];
