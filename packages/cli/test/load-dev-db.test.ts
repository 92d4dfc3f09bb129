import { describe, expect, it } from 'vitest';
import { loadDevDb, type DevDbModule } from '../src/dev/load-dev-db.js';

describe('loading @cyclone/dev-db', () => {
  it('says how to install it when it is missing', async () => {
    const missing = Object.assign(
      new Error("Cannot find package '@cyclone/dev-db' imported from /app/cli.js"),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    await expect(loadDevDb(() => Promise.reject<DevDbModule>(missing))).rejects.toThrow(
      'run `npm install --save-dev @cyclone/dev-db`, or pass --database-url',
    );
  });

  it('loads it when it is there', async () => {
    const devDb = await loadDevDb();
    expect(typeof devDb.startPostgres).toBe('function');
  });
});
