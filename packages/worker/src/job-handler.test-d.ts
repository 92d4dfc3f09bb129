import { describe, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { job, typed } from '@cyclone/core';
import { jobHandler } from './job-handler.js';
import { Worker } from './worker.js';

const sendEmail = job('emails.send', {
  input: z.object({ to: z.string(), cc: z.array(z.string()).default([]) }),
  output: typed<{ messageId: string }>(),
});

describe('jobHandler', () => {
  test("types ctx.input as the schema's output and the return value as the output", () => {
    jobHandler(sendEmail, (ctx) => {
      // The schema's output: cc is always there once parsed.
      expectTypeOf(ctx.input).toEqualTypeOf<{ to: string; cc: string[] }>();
      return { messageId: `${ctx.input.to}:${ctx.input.cc.length}` };
    });
    jobHandler(sendEmail, () => Promise.resolve({ messageId: 'm' }));
    // @ts-expect-error the output must be { messageId: string }
    jobHandler(sendEmail, () => ({ id: 'm' }));
    jobHandler(sendEmail, (ctx) => {
      // @ts-expect-error subject is not an argument of the job
      void ctx.input.subject;
      return { messageId: 'm' };
    });
  });

  test("fits the worker's handlers option, alone or beside other maps", () => {
    const handlers = jobHandler(sendEmail, () => ({ messageId: 'm' }));
    new Worker({ connectionString: 'postgres://x', handlers });
    new Worker({
      connectionString: 'postgres://x',
      handlers: [handlers, { 'reports.build': () => 1 }],
    });
  });
});
