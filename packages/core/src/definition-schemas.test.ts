import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { checkRunInput, nodeOutputIssues, schemasOf } from './definition-schemas.js';
import { parseWorkflowDefinition } from './definition.js';
import { ValidationError } from './errors.js';
import { typed } from './standard-schema.js';
import { workflow } from './workflow-builder.js';

import { buildError, order } from '../test/builder-fixtures.js';

const orderInput = z.object({ orderId: z.string() });

const typedOrder = () =>
  workflow('order', { input: orderInput })
    .task('load', 'orders.load', { output: z.object({ total: z.number() }) })
    .fanOut('pack', 'orders.pack', { from: 'load', output: typed<string>() })
    .build();

const plainOrder = () =>
  workflow('order')
    .task('load', 'orders.load')
    .fanOut('pack', 'orders.pack', { from: 'load' })
    .build();

async function refusal(promise: Promise<unknown>): Promise<ValidationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('schemas on a definition', () => {
  test('leave the data, the JSON and the hash of the definition as without them', () => {
    const typedDef = typedOrder();
    const plainDef = plainOrder();
    expect(typedDef.hash).toBe(plainDef.hash);
    expect(JSON.stringify(typedDef)).toBe(JSON.stringify(plainDef));
    expect(Object.keys(typedDef)).toEqual(Object.keys(plainDef));
    expect(parseWorkflowDefinition(JSON.parse(JSON.stringify(typedDef)))).toEqual(plainDef);
  });

  test('leave the hash of an untyped definition as it was before types existed', () => {
    // The hash of the API reference's order workflow, as computed before schemas were added.
    expect(order().build().hash).toBe(
      '96386fe25be723e9b8df4e82e91715a0082ff912b88b74eea6d2481ce6684430',
    );
    expect(schemasOf(order().build())).toBeUndefined();
  });

  test('are kept by the built definition and lost by its JSON', () => {
    const def = typedOrder();
    expect(schemasOf(def)?.input).toBe(orderInput);
    expect([...schemasOf(def)!.outputs.keys()]).toEqual(['load', 'pack']);
    expect(schemasOf(parseWorkflowDefinition(JSON.parse(JSON.stringify(def))))).toBeUndefined();
  });

  test('store a child given by definition by its name', () => {
    const invoice = workflow('invoice').task('pdf', 'invoices.pdf').build();
    const parent = workflow('parent').child('bill', { workflow: invoice, result: 'pdf' }).build();
    const byName = workflow('parent').child('bill', { workflow: 'invoice', result: 'pdf' }).build();
    expect(parent.hash).toBe(byName.hash);
    expect(schemasOf(parent)?.children.get('bill')).toBe(invoice);
  });

  test('must be Standard Schemas', () => {
    const error = buildError(
      workflow('w', { input: { orderId: 'string' } as never }).task('a', 'k', {
        output: 'number' as never,
      }),
    );
    expect(error.issues).toEqual([
      { path: 'options.input', message: expect.stringContaining('expected a Standard Schema') },
      {
        path: 'nodes.a.options.output',
        message: expect.stringContaining('expected a Standard Schema'),
      },
    ]);
  });
});

describe('checkRunInput', () => {
  test("returns the schema's value for a valid input", async () => {
    const def = workflow('w', { input: z.object({ n: z.number().default(3) }) })
      .task('a', 'k')
      .build();
    await expect(checkRunInput(def, {})).resolves.toEqual({ n: 3 });
  });

  test('refuses an invalid input with each issue path as a list of keys, named in the message', async () => {
    const error = await refusal(checkRunInput(typedOrder(), { orderId: 42 }));
    expect(error.code).toBe('VALIDATION');
    expect(error.issues).toEqual([{ path: ['orderId'], message: expect.any(String) }]);
    expect(error.message).toMatch(/^invalid input of workflow "order": orderId: /);
  });

  test('works with valibot, nested paths included', async () => {
    const def = workflow('w', {
      input: v.object({ items: v.array(v.object({ sku: v.string() })) }),
    })
      .task('a', 'k')
      .build();
    const error = await refusal(checkRunInput(def, { items: [{ sku: 'a' }, { sku: 1 }] }));
    expect(error.issues).toEqual([{ path: ['items', 1, 'sku'], message: expect.any(String) }]);
    expect(error.message).toContain('items[1].sku: ');
    await expect(checkRunInput(def, { items: [] })).resolves.toEqual({ items: [] });
  });

  test("checks a child's input schema too: a child run's input is its parent's", async () => {
    const invoice = workflow('invoice', { input: z.object({ orderId: z.string().min(3) }) })
      .task('pdf', 'k')
      .build();
    const parent = workflow('parent').child('bill', { workflow: invoice }).build();
    const error = await refusal(checkRunInput(parent, { orderId: 'x' }));
    expect(error.issues[0]?.path).toEqual(['orderId']);
    expect(error.issues[0]?.message).toContain('child workflow invoice of node bill');
    await expect(checkRunInput(parent, { orderId: 'xyz' })).resolves.toEqual({ orderId: 'xyz' });
  });

  test('passes anything through a definition without schemas, or with typed<T>() only', async () => {
    await expect(checkRunInput(plainOrder(), 42)).resolves.toBe(42);
    const def = workflow('w', { input: typed<{ a: string }>() }).task('a', 'k').build();
    await expect(checkRunInput(def, 42)).resolves.toBe(42);
  });
});

describe('nodeOutputIssues', () => {
  test("lists the issues of an output against the node's schema, none when it fits", async () => {
    const def = typedOrder();
    await expect(nodeOutputIssues(def, 'load', { total: 5 })).resolves.toEqual([]);
    await expect(nodeOutputIssues(def, 'load', { total: '5' })).resolves.toEqual([
      { path: ['total'], message: expect.any(String) },
    ]);
    await expect(nodeOutputIssues(def, 'pack', 42)).resolves.toEqual([]);
    await expect(nodeOutputIssues(plainOrder(), 'load', 'x')).resolves.toEqual([]);
  });
});
