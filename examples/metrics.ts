import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { Worker } from '@cyclone/worker';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
await migrate({ connectionString });

// With prom-client installed, the worker keeps its metrics from the start.
const worker = new Worker({
  connectionString,
  handlers: { 'email.send': async () => ({ sent: true }) },
  scheduler: true, // adds the leader gauge
});
await worker.start();

// The endpoint Prometheus scrapes: counters from memory, queue gauges read from the database now.
const server = createServer((request, response) => {
  if (request.url !== '/metrics') return void response.writeHead(404).end();
  worker.metrics().then(
    (text) => response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(text),
    (error: unknown) => response.writeHead(500).end(String(error)),
  );
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;

const client = new Client({ connectionString });
const { runId } = await client.enqueue('email.send', { to: 'ada@example.com' });
await client.wait(runId, { timeout: '30s' });

const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
const shown = /^cyclone_(steps_completed_total|queue_ready_steps|dlq_steps|scheduler_leader)\b/;
console.log(
  text
    .split('\n')
    .filter((line) => shown.test(line))
    .join('\n'),
);

server.close();
await client.close();
await worker.stop();
