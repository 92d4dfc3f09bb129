import pg from 'pg';
import { PostgresStore, runOfJob } from '@cyclone/store-postgres';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');

const pool = new pg.Pool({ connectionString });
const store = new PostgresStore({ pool });
const [submitted] = await store.submit([
  runOfJob('email.send', JSON.stringify({ to: 'ada@example.com' })),
]);
const [step] = await store.claim({
  kinds: ['email.send'],
  limit: 1,
  workerId: 'me',
  leaseMs: 30_000,
});
await store.complete([
  { stepId: step!.id, claimToken: step!.claimToken, outputJson: '{"sent":true}' },
]);
console.log((await store.getRun(submitted!.runId))?.state); // 'completed'
await pool.end();
