import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { Scheduler } from '@cyclone/scheduler';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');

const registry = new Registry();
const scheduler = new Scheduler({ connectionString, metricsRegistry: registry });
await scheduler.start();
const server = createServer((_request, response) => {
  void registry.metrics().then((text) => response.end(text));
}).listen(Number(process.env.PORT ?? 9464), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`metrics at http://127.0.0.1:${port}/`); // curl it -> cyclone_scheduler_leader 1
});

const stop = () => {
  server.close();
  void scheduler.stop();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
