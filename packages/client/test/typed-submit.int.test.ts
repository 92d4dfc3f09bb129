import pg from 'pg';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { job, ValidationError, workflow } from '@cyclone/core';
import { useTestDatabase } from '@cyclone/test-db';
import { Client } from '../src/index.js';

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined);
  client = new Client({ pool });
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

/** Rows in every Cyclone table, by table. */
async function rowCounts(): Promise<Record<string, number>> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_name LIKE 'cyclone\\_%' ORDER BY table_name`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(name)}`,
    );
    counts[name] = rows[0]!.n;
  }
  return counts;
}

async function refusal(promise: Promise<unknown>): Promise<ValidationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

const order = workflow('typed-submit-order', {
  input: z.object({ orderId: z.string(), rush: z.boolean().default(false) }),
})
  .task('load', 'orders.load')
  .build();

describe('submit of a definition with an input schema', () => {
  it('refuses an invalid input naming the path, and writes nothing', async () => {
    const before = await rowCounts();
    expect(Object.keys(before).length).toBeGreaterThan(3);
    // @ts-expect-error orderId must be text
    const error = await refusal(client.submit(order, { orderId: 42 }));
    expect(error.code).toBe('VALIDATION');
    expect(error.issues).toEqual([{ path: ['orderId'], message: expect.any(String) }]);
    expect(error.message).toMatch(/^invalid input of workflow "typed-submit-order": orderId: /);
    const many = await refusal(
      // @ts-expect-error the second input lacks orderId
      client.submitMany(order, [{ orderId: 'a' }, {}]),
    );
    expect(many.issues).toEqual([{ path: [1, 'orderId'], message: expect.any(String) }]);
    expect(await rowCounts()).toEqual(before);
  });

  it("stores the schema's value, defaults applied, and types the result", async () => {
    const { runId } = await client.submit(order, { orderId: 'o-1' });
    const { rows } = await pool.query<{ input: unknown }>(
      'SELECT input FROM cyclone_runs WHERE id = $1',
      [runId],
    );
    expect(rows[0]!.input).toEqual({ orderId: 'o-1', rush: false });
  });

  it('works with valibot, and checks the input of a child given by definition', async () => {
    const invoice = workflow('typed-submit-invoice', {
      input: v.object({ orderId: v.pipe(v.string(), v.minLength(3)) }),
    })
      .task('pdf', 'invoices.pdf')
      .build();
    const parent = workflow('typed-submit-parent', { input: v.object({ orderId: v.string() }) })
      .child('bill', { workflow: invoice })
      .build();
    const before = await rowCounts();
    const error = await refusal(client.submit(parent, { orderId: 'x' }));
    expect(error.issues).toEqual([
      {
        path: ['orderId'],
        message: expect.stringContaining('child workflow typed-submit-invoice'),
      },
    ]);
    expect(await rowCounts()).toEqual(before);
    await expect(client.submit(parent, { orderId: 'xyz' })).resolves.toMatchObject({
      created: true,
    });
  });
});

describe('schedule of a definition with an input schema', () => {
  it("refuses an invalid input naming the path and writes nothing; stores the schema's value", async () => {
    const before = await rowCounts();
    const error = await refusal(
      client.schedule({
        id: 'typed-daily',
        cron: '0 6 * * *',
        workflow: order,
        // @ts-expect-error orderId must be text
        input: { orderId: 7 },
      }),
    );
    expect(error.code).toBe('VALIDATION');
    expect(error.issues).toEqual([{ path: ['orderId'], message: expect.any(String) }]);
    expect(error.message).toMatch(
      /^invalid input of schedule "typed-daily" of workflow "typed-submit-order": orderId: /,
    );
    expect(await rowCounts()).toEqual(before);

    await client.schedule({
      id: 'typed-daily',
      cron: '0 6 * * *',
      workflow: order,
      input: { orderId: 'o-9' },
    });
    const { rows } = await pool.query<{ input: unknown }>(
      'SELECT input FROM cyclone_schedules WHERE id = $1',
      ['typed-daily'],
    );
    expect(rows[0]!.input).toEqual({ orderId: 'o-9', rush: false });
  });
});

describe('enqueue of a job declaration', () => {
  const sendEmail = job('typed.emails.send', {
    input: z.object({ to: z.string(), cc: z.array(z.string()).default([]) }),
  });

  it('refuses invalid arguments naming the path and writes nothing', async () => {
    const before = await rowCounts();
    // @ts-expect-error to must be text
    const error = await refusal(client.enqueue(sendEmail, { to: 1 }));
    expect(error.code).toBe('VALIDATION');
    expect(error.issues).toEqual([{ path: ['to'], message: expect.any(String) }]);
    expect(error.message).toMatch(/^invalid arguments of job "typed.emails.send": to: /);
    const many = await refusal(
      // @ts-expect-error the second job lacks to
      client.enqueueMany(sendEmail, [{ to: 'a' }, { cc: [] }]),
    );
    expect(many.issues).toEqual([{ path: [1, 'to'], message: expect.any(String) }]);
    expect(await rowCounts()).toEqual(before);
  });

  it("stores the schema's value, and leaves enqueue by kind unchecked", async () => {
    const { runId } = await client.enqueue(sendEmail, { to: 'a@example.com' });
    const { rows } = await pool.query<{ input: unknown; workflow: string }>(
      'SELECT input, workflow FROM cyclone_runs WHERE id = $1',
      [runId],
    );
    expect(rows).toEqual([
      { input: { to: 'a@example.com', cc: [] }, workflow: 'typed.emails.send' },
    ]);
    await expect(client.enqueue('typed.emails.send', { to: 1 })).resolves.toMatchObject({
      created: true,
    });
  });
});
