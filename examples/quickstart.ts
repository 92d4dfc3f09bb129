import { workflow } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Client } from '@cyclone/client';
import { Worker } from '@cyclone/worker';

// 1. A workflow: two task nodes, the second after the first. Kinds name the handlers.
const signup = workflow('signup')
  .task('create-account', 'accounts.create')
  .task('welcome', 'email.welcome', { dependsOn: ['create-account'], maxAttempts: 5 })
  .build();

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');

// 2. Cyclone's tables: idempotent, so every start may call it.
await migrate({ connectionString });

// 3. A worker with one handler per kind. `scheduler: true` also runs the scheduler's scanners
//    (lease recovery, timers, retention) in this process, which is all a single process needs.
const worker = new Worker({
  connectionString,
  workflows: [signup],
  scheduler: true,
  handlers: {
    'accounts.create': async (ctx) => {
      const { email } = ctx.input as { email: string };
      return { accountId: `acc_${email.split('@')[0]}` };
    },
    'email.welcome': async (ctx) => {
      const { accountId } = ctx.deps['create-account'] as { accountId: string };
      ctx.logger.info({ accountId }, 'welcome email sent');
      return { sent: true };
    },
  },
});
await worker.start();

// 4. Submit a run and wait for its result.
const client = new Client({ connectionString });
const { runId } = await client.submit(signup, { email: 'ada@example.com' });
console.log('run', runId);
console.log(await client.result(runId, { timeout: '1m' })); // { welcome: { sent: true } }

// 5. Shut down: finish what is in flight, then close the pools.
await worker.stop({ timeout: '10s' });
await client.close();
