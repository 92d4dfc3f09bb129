import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CycloneError } from '@cyclone/core';
import { Worker } from '../../src/index.js';
import { testLogger } from '../engine.js';
import { useTransitionEngine } from '../transitions/helpers.js';

const engine = useTransitionEngine();

async function startError(connectionString: string): Promise<unknown> {
  const worker = new Worker({
    connectionString,
    logger: testLogger,
    handlers: { 'start.never': () => null },
  });
  try {
    await worker.start();
  } catch (error) {
    return error;
  } finally {
    await worker.stop({ timeout: '1s' });
  }
  throw new Error('start() resolved');
}

describe('Worker.start() on a database it cannot use', () => {
  it('rejects with a typed error when the database is unreachable', async () => {
    const error = await startError('postgres://postgres@127.0.0.1:1/postgres');
    expect(error).toBeInstanceOf(CycloneError);
    expect((error as Error).message).toMatch(/cannot start|unreachable|connect/i);
  });

  it('rejects with a typed error when the database is not migrated', async () => {
    const name = `cyclone_empty_${randomBytes(4).toString('hex')}`;
    await engine.query(`CREATE DATABASE ${name}`);
    try {
      const url = new URL(engine.url);
      url.pathname = `/${name}`;
      const error = await startError(url.toString());
      expect(error).toBeInstanceOf(CycloneError);
      expect((error as Error).message).toMatch(/migrat|schema|cyclone_steps/i);
    } finally {
      await engine.query(`DROP DATABASE ${name} WITH (FORCE)`);
    }
  });
});
