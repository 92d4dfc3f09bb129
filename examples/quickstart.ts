import { typed, workflow } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Client } from '@cyclone/client';
import { handlersFor, Worker } from '@cyclone/worker';

// 1. A workflow: two task nodes, the second after the first. Kinds name the handlers' work;
//    `input` and `output` declare the types the handlers see and return.
const signup = workflow('signup', { input: typed<{ email: string }>() })
  .task('create-account', 'accounts.create', { output: typed<{ accountId: string }>() })
  .task('welcome', 'email.welcome', {
    dependsOn: ['create-account'],
    maxAttempts: 5,
    output: typed<{ sent: boolean }>(),
  })
  .build();

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');

// 2. Cyclone's tables: idempotent, so every start may call it.
await migrate({ connectionString });

// 3. A worker with a handler per node, typed from the definition. `scheduler: true` also runs
//    the scheduler's scanners (lease recovery, timers, retention) in this process, which is all a
//    single process needs.
const worker = new Worker({
  connectionString,
  workflows: [signup],
  scheduler: true,
  handlers: handlersFor(signup, {
    'create-account': async (ctx) => ({ accountId: `acc_${ctx.input.email.split('@')[0]}` }),
    welcome: async (ctx) => {
      const { accountId } = ctx.deps['create-account'];
      ctx.logger.info({ accountId }, 'welcome email sent');
      return { sent: true };
    },
  }),
});
await worker.start();

// 4. Submit a run and wait for its result.
const client = new Client({ connectionString });
const { runId } = await client.submit(signup, { email: 'ada@example.com' });
console.log('run', runId);
console.log(await client.result(runId, { timeout: '1m' })); // typed: { welcome: { sent: true } }

// 5. Shut down: finish what is in flight, then close the pools.
await worker.stop({ timeout: '10s' });
await client.close();
