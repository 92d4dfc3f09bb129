/**
 * Each system's claim and completion, as pgbench scripts built from the statements the system sent
 * (see capture.ts): one script run claims a batch and completes it, in two statements, the way the
 * system's worker does with no handler in between. The claim's rows are folded into arrays
 * (`\gset`) and passed to the completion as its batch.
 */
import type { SystemName } from '../shared/types.js';
import { textValue, type CapturedStatement } from './capture.js';
import type { PgbenchScript } from './pgbench.js';

/** How one system's statements are found and turned into a script. */
export interface BoundStatements {
  /** Which captured statement names are the claim and the completion. */
  readonly claim: (name: string) => boolean;
  readonly complete: (name: string) => boolean;
  /** The script for batches of `batch` jobs. */
  script(claim: CapturedStatement, complete: CapturedStatement, batch: number): PgbenchScript;
}

/** The SQL without its comments: pgbench would read `:word` in a comment as a variable. */
function withoutComments(text: string): string {
  return text.replace(/--[^\n]*/g, '');
}

/** Splits a statement at its last line starting with `keyword` (the outer statement of its CTEs). */
function splitAtLast(text: string, keyword: RegExp, what: string): [string, string] {
  let at = -1;
  for (const m of text.matchAll(keyword)) at = m.index;
  if (at < 0) throw new Error(`sql bound: ${what} does not have the expected shape`);
  return [text.slice(0, at), text.slice(at)];
}

/**
 * The SQL with no `:name` inside a string literal: pgbench reads one as a variable even there (the
 * claim's `to_char` format `HH24:MI:SS`), so each such colon becomes `chr(58)` concatenated.
 */
function withoutColonsInLiterals(text: string): string {
  return text.replace(/'[^']*'/g, (literal) =>
    literal.replace(/:(?=[A-Za-z_])/g, "' || chr(58) || '"),
  );
}

/** `$n` placeholders as pgbench variables: `rename(n)` names the variable of `$n`. */
function withVariables(text: string, rename: (n: number) => string): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => `:${rename(Number(n))}`);
}

/** The static values of a statement as `-D` variables `<prefix><n>`. */
function staticVariables(
  prefix: string,
  values: readonly unknown[],
  skip: ReadonlySet<number>,
): Record<string, string> {
  const out: Record<string, string> = {};
  values.forEach((v, i) => {
    if (!skip.has(i + 1)) out[`${prefix}${i + 1}`] = textValue(v);
  });
  return out;
}

function positionOf(text: string, pattern: RegExp, what: string): number[] {
  const m = pattern.exec(text);
  if (!m) throw new Error(`sql bound: ${what} does not have the expected shape`);
  return m.slice(1).map(Number);
}

const cyclone: BoundStatements = {
  claim: (name) => name.includes('claim-steps'),
  complete: (name) => name.includes('complete-steps'),
  script(claim, complete, batch) {
    const claimText = withoutColonsInLiterals(withoutComments(claim.text));
    // The limit is read through a scalar subquery (decision 286): `LIMIT (SELECT $n::int)`.
    const [limit] = positionOf(claimText, /LIMIT (?:\(SELECT )?\$(\d+)/, 'the claim statement');
    const [ctes, select] = splitAtLast(claimText, /\nSELECT /g, 'the claim statement');
    const claimSql = `${withVariables(ctes, (n) => `c${n}`)}, bound_out AS (${withVariables(select, (n) => `c${n}`)})
SELECT coalesce(array_agg(id), '{}') AS bound_ids, coalesce(array_agg(claim_token), '{}') AS bound_tokens,
       coalesce(jsonb_agg('{}'::jsonb), '[]') AS bound_outputs
FROM bound_out \\gset`;
    const completeText = withoutComments(complete.text);
    // Ids and tokens as array literals, the outputs as one JSON array (completionsInput), each
    // read through a scalar subquery (decision 420).
    const [ids, tokens] = positionOf(
      completeText,
      /unnest\(\(SELECT \$(\d+)::uuid\[\]\), \(SELECT \$(\d+)::uuid\[\]\)\)/,
      'the completion statement',
    );
    const [outputs] = positionOf(
      completeText,
      /\(SELECT \$(\d+)::jsonb\) ->/,
      'the completion statement',
    );
    const batchOf: Record<number, string> = {
      [ids!]: 'bound_ids',
      [tokens!]: 'bound_tokens',
      [outputs!]: 'bound_outputs',
    };
    const completeSql = `${withVariables(completeText, (n) => batchOf[n] ?? `d${n}`)};`;
    return {
      script: `${claimSql}\n${completeSql}\n`,
      variables: {
        ...staticVariables('c', claim.values, new Set()),
        [`c${limit}`]: String(batch),
        ...staticVariables('d', complete.values, new Set([ids!, tokens!, outputs!])),
      },
    };
  },
};

const graphileWorker: BoundStatements = {
  claim: (name) => name.startsWith('get_job'),
  complete: (name) => name.startsWith('complete_jobs/'),
  script(claim, complete, batch) {
    // The batch size is part of graphile-worker's claim text (`limit N`), not a parameter.
    const claimText = withoutComments(claim.text).replace(/\blimit \d+/, `limit ${batch}`);
    const [ctes, update] = splitAtLast(claimText, /\n\s*update /g, 'the claim statement');
    const returning = update.replace(/returning \*\s*$/, 'returning jobs.id');
    if (returning === update) throw new Error('sql bound: the claim statement has no returning *');
    const claimSql = `${withVariables(ctes, (n) => `c${n}`)},
bound_out as (${withVariables(returning, (n) => `c${n}`)})
select coalesce(array_agg(id), '{}') as bound_ids from bound_out \\gset`;
    const completeSql = `${withVariables(withoutComments(complete.text), (n) => (n === 1 ? 'bound_ids' : `d${n}`))};`;
    return {
      script: `${claimSql}\n${completeSql}\n`,
      variables: {
        ...staticVariables('c', claim.values, new Set()),
        ...staticVariables('d', complete.values, new Set([1])),
      },
    };
  },
};

/** The systems whose SQL bound the bench measures. */
export const boundStatements: Partial<Record<SystemName, BoundStatements>> = {
  cyclone,
  'graphile-worker': graphileWorker,
};
