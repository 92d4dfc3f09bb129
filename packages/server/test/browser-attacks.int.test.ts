/**
 * What a page elsewhere makes a real browser (headless chromium) send to a server on loopback
 * without a token, its default: a form post and a `text/plain` post from another site, and the
 * requests of a page reaching the server through a name an attacker controls (DNS rebinding,
 * the name mapped to 127.0.0.1 in the browser's resolver). Each is refused; the database is
 * checked by SQL.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { createServer, type CycloneServer } from '../src/index.js';
import { launchChromium } from './chromium.js';
import { testLogger, useServer } from './support.js';

const env = useServer();

const waiting = workflow('target-wait').waitSignal('go', { signal: 'go' }).build();

let browser: Browser;
let server: CycloneServer;
let base: string;
let attacker: Server;
let attackerUrl: string;
let waitingRun: string;

const stateOf = async (runId: string) =>
  (await env.query<{ state: string }>('SELECT state FROM cyclone_runs WHERE id = $1', [runId]))[0]
    ?.state;

const discarded = () =>
  env.query("SELECT id, state, attempts FROM cyclone_steps WHERE state = 'discarded' ORDER BY id");

beforeAll(async () => {
  await env.failedRun('target');
  waitingRun = (await env.client.submit(waiting, {})).runId;

  server = createServer({ client: env.client, logger: testLogger });
  base = (await server.listen(0)).url;
  // Another site (localhost is not 127.0.0.1): a page with a form posting to the server.
  attacker = createHttpServer((_, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><form id="f" method="POST" action="${base}/api/dlq/redrive">
      <input name="reason" value="permanent"></form>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://localhost:${(attacker.address() as { port: number }).port}/`;
  browser = await launchChromium(['--host-resolver-rules=MAP evil.example 127.0.0.1']);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  const closed = new Promise<void>((resolve) => attacker?.close(() => resolve()));
  attacker?.closeAllConnections(); // the browser kept its connection alive
  await closed;
});

describe('a page elsewhere, in the same browser', () => {
  it('changes nothing: its form post and its text/plain post are refused', async () => {
    const dlqBefore = await discarded();
    expect(dlqBefore).toHaveLength(1);
    const page = await browser.newPage();
    try {
      await page.goto(attackerUrl);
      // A "simple" request: sent without a preflight. Its answer reaches the page not even as an
      // opaque response: Cross-Origin-Resource-Policy blocks it once it arrived.
      const simple = await page.evaluate(
        `fetch('${base}/api/runs/${waitingRun}/cancel', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: '{}' }).then(() => 'opaque', () => 'blocked')`,
      );
      expect(simple).toBe('blocked');
      const navigation = page.waitForNavigation();
      await page.evaluate(`document.getElementById('f').submit()`);
      const answer = await navigation;
      expect(answer?.status()).toBe(403);
      expect(await page.evaluate('document.body.textContent')).toContain('CROSS_SITE');
    } finally {
      await page.close();
    }
    expect(await stateOf(waitingRun)).toBe('running');
    expect(await discarded()).toEqual(dlqBefore);
  });

  it('reaching the server through a rebound name, is refused before any route runs', async () => {
    const port = new URL(base).port;
    const page = await browser.newPage();
    try {
      const answer = await page.goto(`http://evil.example:${port}/`);
      expect(answer?.status()).toBe(403);
      expect(await page.evaluate('document.body.textContent')).toContain('HOST_NOT_ALLOWED');
      // Its script is of the rebound origin, so same-origin to it: refused all the same.
      const read = await page.evaluate(`fetch('/api/runs').then((r) => r.status)`);
      expect(read).toBe(403);
      const change = await page.evaluate(
        `fetch('/api/runs/${waitingRun}/cancel', { method: 'POST', headers: { 'Content-Type': 'application/json' } }).then((r) => r.status)`,
      );
      expect(change).toBe(403);
    } finally {
      await page.close();
    }
    expect(await stateOf(waitingRun)).toBe('running');
  });

  it("lets the server's own page change what it asks", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${base}/#/runs`);
      const status = await page.evaluate(
        `fetch('/api/runs/${waitingRun}/cancel', { method: 'POST', headers: { 'Content-Type': 'application/json' } }).then((r) => r.status)`,
      );
      expect(status).toBe(200);
    } finally {
      await page.close();
    }
    expect(await stateOf(waitingRun)).toBe('cancelled');
  });
});
