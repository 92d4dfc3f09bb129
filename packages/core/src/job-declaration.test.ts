import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkJobArgs, isJobDeclaration, job, jobOutputIssues } from './job-declaration.js';
import { ValidationError } from './errors.js';
import { typed } from './standard-schema.js';

describe('job', () => {
  it('declares a kind with its schemas, frozen', () => {
    const input = z.object({ to: z.string() });
    const declaration = job('emails.send', { input });
    expect(declaration).toEqual({ kind: 'emails.send', input, output: undefined });
    expect(Object.isFrozen(declaration)).toBe(true);
    expect(isJobDeclaration(declaration)).toBe(true);
    expect(isJobDeclaration('emails.send')).toBe(false);
  });

  it('refuses a kind that is not a handler kind, and a schema that is not a Standard Schema', () => {
    expect(() => job('emails send')).toThrow(ValidationError);
    expect(() => job('emails send')).toThrow(/invalid job declaration: kind: expected 1 to 128/);
    expect(() => job('a', { output: { parse: () => 1 } as never })).toThrow(
      /output: expected a Standard Schema/,
    );
  });

  it("checks arguments against the input schema, giving the schema's value", async () => {
    const declaration = job('emails.send', {
      input: z.object({ to: z.string(), cc: z.array(z.string()).default([]) }),
    });
    await expect(checkJobArgs(declaration, { to: 'a' })).resolves.toEqual({ to: 'a', cc: [] });
    const refused = await checkJobArgs(declaration, { to: 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).issues).toEqual([
      { path: ['to'], message: expect.any(String) },
    ]);
    // typed<T>() and no schema check nothing at run time.
    await expect(checkJobArgs(job('k', { input: typed<string>() }), 1)).resolves.toBe(1);
    await expect(checkJobArgs(job('k'), 1)).resolves.toBe(1);
  });

  it('gives the issues of an output its schema refuses', async () => {
    const declaration = job('k', { output: z.number() });
    expect(await jobOutputIssues(declaration, 1)).toEqual([]);
    expect(await jobOutputIssues(declaration, 'one')).toEqual([
      { path: [], message: expect.any(String) },
    ]);
  });
});
