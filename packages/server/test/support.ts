/**
 * Helpers of the server's tests: a database of the file's own with a client and a server on it,
 * requests through the server's fetch handler, and workers that run small workflows.
 */
import { request as httpRequest } from 'node:http';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { Client } from '@cyclone/client';
import { permanent, workflow } from '@cyclone/core';
import { eventually as baseEventually, useTestDatabase } from '@cyclone/test-db';
import { Worker, type WorkerOptions } from '@cyclone/worker';
import { createServer, type CycloneServer, type ServerOptions } from '../src/index.js';

/** A silent logger; set CYCLONE_TEST_LOG=debug to see the server's request log. */
export const testLogger = pino({ level: process.env.CYCLONE_TEST_LOG ?? 'silent' });

/** What a request answered, with its JSON body parsed (or its text, for non-JSON answers). */
export interface Answer<T = any> {
  readonly status: number;
  readonly body: T;
  readonly text: string;
  readonly headers: Headers;
}

/**
 * Sends a request to a server's fetch handler, as an HTTP client would: to `localhost`, with
 * `Content-Type: application/json` on any method but GET and HEAD unless `headers` say otherwise.
 */
export async function request<T = any>(
  server: Pick<CycloneServer, 'fetch'>,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> =
    method === 'GET' || method === 'HEAD' ? {} : { 'Content-Type': 'application/json' };
  const init: RequestInit = { method, headers: { ...headers, ...options.headers } };
  if (options.raw !== undefined) init.body = options.raw;
  else if (options.body !== undefined) init.body = JSON.stringify(options.body);
  const response = await server.fetch(new Request(`http://localhost${path}`, init));
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Prometheus text, HTML: kept as text.
  }
  return { status: response.status, body: body as T, text, headers: response.headers };
}

/**
 * Sends a request over HTTP with exactly the headers given, `Host` included, as a browser (or a
 * page tricking one) would send them; `fetch` sets `Host` itself and refuses to change it.
 */
export function send<T = any>(
  url: string,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer<T>> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) answerHeaders.set(name, String(value));
        }
        let parsed: unknown = text;
        if (res.headers['content-type']?.includes('json')) parsed = JSON.parse(text);
        resolve({ status: res.statusCode!, body: parsed as T, text, headers: answerHeaders });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A test database for the file, with a pool, a client and a server (options merged in), and a
 * way to start workers that are stopped when the file ends.
 */
export function useServer(options: Partial<ServerOptions> = {}) {
  const db = useTestDatabase();
  let pool: pg.Pool;
  let client: Client;
  let server: CycloneServer;
  const workers: Worker[] = [];

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: db.url, max: 6 });
    pool.on('error', () => undefined);
    client = new Client({ pool });
    server = createServer({ ...options, client, logger: testLogger } as ServerOptions);
  });
  afterAll(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop({ timeout: '1s' })));
    await server?.close();
    await client?.close();
    await pool?.end();
  });

  return {
    get url() {
      return db.url;
    },
    get pool() {
      return pool;
    },
    get client() {
      return client;
    },
    get server() {
      return server;
    },
    /** Sends a request to the server. */
    call<T = any>(method: string, path: string, opts?: Parameters<typeof request>[3]) {
      return request<T>(server, method, path, opts);
    },
    async startWorker(workerOptions: Omit<WorkerOptions, 'connectionString'>): Promise<Worker> {
      const worker = new Worker({
        connectionString: db.url,
        logger: testLogger,
        pollInterval: '100ms',
        ...workerOptions,
      });
      workers.push(worker);
      await worker.start();
      return worker;
    },
    /**
     * A failed run of a workflow `name` of one task that always fails permanently, so its step
     * is in the DLQ; a worker serving it keeps running (a redrive fails it again).
     */
    async failedRun(name: string): Promise<string> {
      const kind = `${name}.work`;
      const definition = workflow(name).task('work', kind, { maxAttempts: 1 }).build();
      await this.startWorker({
        handlers: {
          [kind]: async () => {
            throw permanent(new Error('no'));
          },
        },
        workflows: [definition],
      });
      const { runId } = await client.submit(definition, {});
      await eventually(
        async () => (await client.getRun(runId)).state === 'failed',
        `the ${name} run to fail`,
      );
      return runId;
    },
    async query<R extends pg.QueryResultRow = Record<string, unknown>>(
      text: string,
      values: unknown[] = [],
    ): Promise<R[]> {
      return (await pool.query<R>(text, values)).rows;
    },
  };
}

/** {@link baseEventually} with the server tests' deadline (15 s) and pace (50 ms). */
export function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  return baseEventually(probe, what, timeoutMs, 50);
}
