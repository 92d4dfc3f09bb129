import { Scheduler } from '@cyclone/scheduler';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');

const scheduler = new Scheduler({ connectionString, interval: '1s' });
await scheduler.start();

const stop = () => void scheduler.stop();
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
console.log('scheduler started; stop it with Ctrl-C');
