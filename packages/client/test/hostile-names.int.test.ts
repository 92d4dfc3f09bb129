import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCycloneError, workflow, type WorkflowDefinition } from '@cyclone/core';
import { useTestDatabase } from '@cyclone/test-db';
import { Client } from '../src/index.js';

// Strings an attacker (or an unlucky caller) may pass as a name or key. Each must either be
// refused with a ValidationError before anything reaches SQL, or be stored exactly as given: every
// value travels as a bind parameter, never as SQL text, and never as a LISTEN/NOTIFY channel.
const INJECTION = "'; DROP TABLE cyclone_runs; --";
const PAREN_INJECTION = "x'); DROP TABLE cyclone_steps; --";
const DOLLAR_QUOTE = '$$; DROP TABLE cyclone_events; $$';
const DOUBLE_QUOTE = 'say "hi"';
const APOSTROPHE = "o'reilly";
const BACKSLASH = 'C:\\temp\\%_';
const HUGE = 'x'.repeat(10_000);
const NOTIFY_STATEMENT = "NOTIFY cyclone_runs_ended, 'x'";
const CHANNEL_RUNS_ENDED = 'cyclone_runs_ended';
const CHANNEL_STEPS_AVAILABLE = 'cyclone_steps_available';
const PG_NOTIFY = "pg_notify('cyclone_steps_available','x')";

type Outcome = 'rejected' | 'stored';

interface Case {
  /** How the case is named in the test title (the 10,000-character value is not). */
  readonly label: string;
  readonly value: string;
  readonly outcome: Outcome;
}

const LABELS = new Map<string, string>([[HUGE, '10,000 characters']]);

function cases(rows: readonly (readonly [string, Outcome])[]): Case[] {
  return rows.map(([value, outcome]) => ({ label: LABELS.get(value) ?? value, value, outcome }));
}

/**
 * Names (workflow, node, kind) follow core's name pattern: 1 to 128 of A-Z a-z 0-9 _ . : -.
 * So anything with a quote, a space or a semicolon is refused; channel-like names are plain names.
 */
const NAMES = cases([
  [INJECTION, 'rejected'],
  [PAREN_INJECTION, 'rejected'],
  [DOLLAR_QUOTE, 'rejected'],
  [DOUBLE_QUOTE, 'rejected'],
  [APOSTROPHE, 'rejected'],
  [BACKSLASH, 'rejected'],
  [HUGE, 'rejected'],
  [NOTIFY_STATEMENT, 'rejected'],
  [PG_NOTIFY, 'rejected'],
  [CHANNEL_RUNS_ENDED, 'stored'],
  [CHANNEL_STEPS_AVAILABLE, 'stored'],
  ['cyclone_runs', 'stored'],
]);

/** Idempotency keys may be any well-formed text up to 512 characters. */
const KEYS = cases([
  [INJECTION, 'stored'],
  [PAREN_INJECTION, 'stored'],
  [DOLLAR_QUOTE, 'stored'],
  [DOUBLE_QUOTE, 'stored'],
  [APOSTROPHE, 'stored'],
  [BACKSLASH, 'stored'],
  [NOTIFY_STATEMENT, 'stored'],
  [PG_NOTIFY, 'stored'],
  [CHANNEL_RUNS_ENDED, 'stored'],
  [CHANNEL_STEPS_AVAILABLE, 'stored'],
  [HUGE, 'rejected'],
]);

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;
let catalogBefore: string[];

/** Every cyclone_* relation (tables, indexes, sequences) with its columns and their types. */
async function catalog(): Promise<string[]> {
  const { rows } = await pool.query<{ entry: string }>(
    `SELECT c.relkind::text || ' ' || c.relname || coalesce('.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod), '') AS entry
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
       LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE c.relname LIKE 'cyclone\\_%'
      ORDER BY 1`,
  );
  return rows.map((r) => r.entry);
}

async function expectValidationError(promise: Promise<unknown>, path?: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isCycloneError(error, 'VALIDATION'), String(error)).toBe(true);
  if (path) {
    const paths = (error as { issues: readonly { path: string }[] }).issues.map((i) => i.path);
    expect(
      paths.some((p) => path.test(p)),
      paths.join(', '),
    ).toBe(true);
  }
}

/** A definition that skipped the builder: what arrives from JSON, another service or a bad cast. */
function tampered(definition: WorkflowDefinition, change: Partial<WorkflowDefinition>) {
  return { ...definition, ...change } as WorkflowDefinition;
}

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined);
  client = new Client({ pool });
  catalogBefore = await catalog();
  expect(catalogBefore.some((entry) => entry.startsWith('r cyclone_runs.'))).toBe(true);
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

describe('hostile workflow names', () => {
  it.each(NAMES)('$label is $outcome', async ({ value: name, outcome }) => {
    if (outcome === 'rejected') {
      expect(() => workflow(name).task('a', 'hostile.a').build()).toThrow(
        expect.objectContaining({ code: 'VALIDATION' }),
      );
      const valid = workflow('hostile').task('a', 'hostile.a').build();
      await expectValidationError(client.submit(tampered(valid, { name })), /^name$/);
      return;
    }
    const { runId } = await client.submit(workflow(name).task('a', 'hostile.a').build(), null);
    expect((await client.getRun(runId)).workflow).toBe(name);
    const { rows } = await pool.query('SELECT workflow FROM cyclone_runs WHERE id = $1', [runId]);
    expect(rows).toEqual([{ workflow: name }]);
  });
});

describe('hostile node names', () => {
  it.each(NAMES)('$label is $outcome', async ({ value: name, outcome }) => {
    if (outcome === 'rejected') {
      expect(() => workflow('hostile-nodes').task(name, 'hostile.a').build()).toThrow(
        expect.objectContaining({ code: 'VALIDATION' }),
      );
      const valid = workflow('hostile-nodes').task('a', 'hostile.a').build();
      const nodes = [{ ...valid.nodes[0]!, name }];
      await expectValidationError(client.submit(tampered(valid, { nodes })), /^nodes/);
      return;
    }
    const definition = workflow('hostile-nodes').task(name, 'hostile.a').build();
    const { runId } = await client.submit(definition, null);
    const steps = await client.listSteps(runId);
    expect(steps.map((s) => s.node)).toEqual([name]);
  });
});

describe('hostile handler kinds', () => {
  it.each(NAMES)('$label is $outcome', async ({ value: kind, outcome }) => {
    if (outcome === 'rejected') {
      await expectValidationError(client.enqueue(kind, null), /^kind$/);
      expect(() => workflow('hostile-kinds').task('a', kind).build()).toThrow(
        expect.objectContaining({ code: 'VALIDATION' }),
      );
      return;
    }
    const { runId } = await client.enqueue(kind, { kind });
    const { rows } = await pool.query(
      'SELECT r.workflow, s.kind FROM cyclone_runs r JOIN cyclone_steps s ON s.run_id = r.id WHERE r.id = $1',
      [runId],
    );
    expect(rows).toEqual([{ workflow: kind, kind }]);
  });
});

describe('hostile idempotency keys', () => {
  it.each(KEYS)('$label is $outcome', async ({ value: key, outcome }) => {
    const definition = workflow('hostile-keys').task('a', 'hostile.a').build();
    if (outcome === 'rejected') {
      await expectValidationError(
        client.submit(definition, null, { idempotencyKey: key }),
        /^idempotencyKey$/,
      );
      await expectValidationError(
        client.enqueue('hostile.job', null, { idempotencyKey: key }),
        /^idempotencyKey$/,
      );
      return;
    }
    const first = await client.submit(definition, null, { idempotencyKey: key });
    expect(first.created).toBe(true);
    const { rows } = await pool.query('SELECT idempotency_key FROM cyclone_runs WHERE id = $1', [
      first.runId,
    ]);
    expect(rows).toEqual([{ idempotency_key: key }]);
    // Matched verbatim: the same key finds the run, an enqueue with it too.
    expect(await client.submit(definition, null, { idempotencyKey: key })).toEqual({
      runId: first.runId,
      created: false,
    });
    expect(await client.enqueue('hostile.job', null, { idempotencyKey: key })).toEqual({
      runId: first.runId,
      created: false,
    });
  });
});

describe('after every hostile value', () => {
  it('leaves the schema exactly as it was, with every table still there and readable', async () => {
    expect(await catalog()).toEqual(catalogBefore);
    for (const table of ['cyclone_runs', 'cyclone_steps']) {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
      expect(rows[0]!.n).toBeGreaterThan(0);
    }
    // Submissions store no event row (their run_submitted is told by the run row): readable is
    // what is checked here.
    await expect(pool.query('SELECT count(*) FROM cyclone_events')).resolves.toBeDefined();
  });
});
