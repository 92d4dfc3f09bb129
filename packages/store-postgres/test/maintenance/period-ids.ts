import { randomUUID } from 'node:crypto';
import type { NewRun } from '../../src/contract/new-run.js';
import { stepIdsOf } from '../../src/db/ids.js';

/** A UUID version 7 made at exactly `ms` (its first 48 bits), the rest random. */
export function idAt(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  const random = randomUUID().replaceAll('-', '');
  const variant = ((parseInt(random[16]!, 16) & 3) | 8).toString(16);
  const h = `${hex}7${random.slice(13, 16)}${variant}${random.slice(17, 32)}`;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The run as if submitted at `ms`: its id made in that millisecond, and its steps' ids from it as
 * submission makes them (a job's step shares its run's id), so its rows and events belong to
 * that period.
 */
export function runAt(run: NewRun, ms: number): NewRun {
  const id = idAt(ms);
  const stepId = stepIdsOf(id);
  return {
    ...run,
    id,
    steps: run.steps.map((s) => ({ ...s, id: s.id === run.id ? id : stepId() })),
  };
}
