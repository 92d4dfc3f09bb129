/**
 * A server given workflow definitions (`workflows`): `POST /api/runs` checks the input against
 * the workflow's input schema (400 `VALIDATION` with the schema's issues, nothing written), and
 * the API description carries each one's input JSON Schema.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isCycloneError, typed, workflow, type StandardSchemaV1 } from '@cyclone/core';
import { createServer } from '../src/index.js';
import { testLogger, useServer } from './support.js';

const order = workflow('typed:order', {
  input: z.object({ orderId: z.string(), rush: z.boolean().default(false) }),
})
  .task('charge', 'typed.charge')
  .build();
/** A schema of a library that describes no JSON Schema: validated, but not in the description. */
const textSchema: StandardSchemaV1<{ text: string }> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) =>
      typeof (value as { text?: unknown } | null)?.text === 'string'
        ? { value: value as { text: string } }
        : { issues: [{ message: 'expected text', path: ['text'] }] },
  },
};
const note = workflow('typed-note', { input: textSchema }).task('write', 'typed.write').build();
const plain = workflow('typed-plain', { input: typed<{ any: true }>() })
  .task('work', 'typed.work')
  .build();

const env = useServer({ workflows: [order, note, plain] });

async function runsOf(name: string): Promise<number> {
  const [row] = await env.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM cyclone_runs WHERE workflow = $1',
    [name],
  );
  return row!.n;
}

describe('POST /api/runs of a workflow the server was given', () => {
  it('answers 400 VALIDATION with the schema issues and their paths, writing nothing', async () => {
    const answer = await env.call('POST', '/api/runs', {
      body: { workflow: 'typed:order', input: { orderId: 42 } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('VALIDATION');
    expect(answer.body.error.issues).toEqual([
      { path: ['orderId'], message: expect.stringMatching(/string/i) },
    ]);
    expect(answer.body.error.message).toContain('orderId');
    expect(answer.body.error.message).toContain('input of workflow "typed:order"');
    expect(await runsOf('typed:order')).toBe(0);

    const other = await env.call('POST', '/api/runs', {
      body: { workflow: 'typed-note', input: {} },
    });
    expect(other.status).toBe(400);
    expect(other.body.error.issues[0].path).toEqual(['text']);
    expect(await runsOf('typed-note')).toBe(0);
  });

  it("submits an input that fits, storing the schema's value, with no definition stored before", async () => {
    const answer = await env.call('POST', '/api/runs', {
      body: { workflow: 'typed:order', input: { orderId: 'o-1' } },
    });
    expect(answer.status).toBe(201);
    const [row] = await env.query('SELECT input FROM cyclone_runs WHERE id = $1', [
      answer.body.runId,
    ]);
    expect(row).toMatchObject({ input: { orderId: 'o-1', rush: false } });
    // A type-only declaration checks nothing at run time.
    const any = await env.call('POST', '/api/runs', {
      body: { workflow: 'typed-plain', input: 'whatever' },
    });
    expect(any.status).toBe(201);
  });
});

describe('the API description of a server given workflows', () => {
  it("carries each described input schema, and narrows POST /api/runs's body by workflow", async () => {
    const answer = await env.call('GET', '/api/openapi.json');
    expect(answer.status).toBe(200);
    const description = answer.body;
    const validator = new Validator();
    const result = await validator.validate(description);
    expect(result.errors ?? []).toEqual([]);

    const schemas = description.components.schemas;
    expect(schemas['WorkflowInput.typed_order']).toMatchObject({
      type: 'object',
      properties: { orderId: { type: 'string' }, rush: { type: 'boolean' } },
      required: ['orderId'],
    });
    expect(schemas['WorkflowInput.typed_order'].$schema).toBeUndefined();
    expect(Object.keys(schemas).filter((k) => k.startsWith('WorkflowInput.'))).toEqual([
      'WorkflowInput.typed_order',
    ]);
    const body = description.paths['/api/runs'].post.requestBody.content['application/json'];
    expect(body.schema.oneOf).toEqual([
      {
        title: 'A run of typed:order',
        allOf: [{ $ref: '#/components/schemas/SubmitRunRequest' }],
        properties: {
          workflow: { const: 'typed:order' },
          input: { $ref: '#/components/schemas/WorkflowInput.typed_order' },
        },
      },
      {
        title: 'A run of any other workflow',
        allOf: [{ $ref: '#/components/schemas/SubmitRunRequest' }],
        properties: { workflow: { not: { enum: ['typed:order'] } } },
      },
    ]);
    expect(schemas.SubmitRunRequest.properties.workflow.type).toBe('string');
  });
});

describe('createServer with workflows', () => {
  it('refuses a workflow given twice, or something that is not a definition', () => {
    const twice = () =>
      createServer({ client: env.client, logger: testLogger, workflows: [order, order] });
    expect(twice).toThrow(/a second definition of workflow "typed:order"/);
    try {
      twice();
    } catch (error) {
      expect(isCycloneError(error, 'SERVER_OPTIONS')).toBe(true);
    }
    const junk = () =>
      createServer({
        client: env.client,
        logger: testLogger,
        workflows: [{ name: 'x' } as never],
      });
    expect(junk).toThrow(/workflows\[0\] is not a workflow definition/);
  });
});
