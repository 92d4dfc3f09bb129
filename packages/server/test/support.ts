/**
 * Helpers of the server's tests: a database of the file's own with a client and a server on it,
 * requests through the server's fetch handler, and workers that run small workflows.
 */
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { Client } from '@cyclone/client';
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

/** Sends a request to a server's fetch handler, as an HTTP client would. */
export async function request<T = any>(
  server: Pick<CycloneServer, 'fetch'>,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const init: RequestInit = { method, headers: { ...options.headers } };
  if (options.raw !== undefined) init.body = options.raw;
  else if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
  }
  const response = await server.fetch(new Request(`http://cyclone.test${path}`, init));
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
