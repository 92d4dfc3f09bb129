/**
 * The operators' pages of the dashboard in headless chromium against a real engine: the overview
 * (runs by state, queues by kind, the last hour's charts), the workers page, a run's timeline and
 * the runs list's search, each checked against what the database holds. Screenshots go to
 * reports/screenshots/ at the repository root.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import type { Worker } from '@cyclone/worker';
import { launchChromium } from './chromium.js';
import { eventually, testLogger, useServer } from './support.js';
import { createServer, type CycloneServer } from '../src/index.js';

const env = useServer();

const screenshots = path.join(
  fileURLToPath(new URL('../../..', import.meta.url)),
  'reports',
  'screenshots',
);

const order = workflow('order')
  .task('charge', 'ov.charge', { maxAttempts: 3, backoff: { initial: '300ms', jitter: 0 } })
  .task('list', 'ov.list', { dependsOn: ['charge'] })
  .fanOut('pack', 'ov.pack', { from: 'list' })
  .build();

let browser: Browser;
let page: Page;
let server: CycloneServer;
let base: string;
let retried: string;
let worker: Worker;

async function shoot(name: string): Promise<void> {
  const file = path.join(screenshots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
}

const text = (selector: string) =>
  page.$eval(selector, (el) => (el.textContent ?? '').trim()) as Promise<string>;

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  const charged = new Set<string>();
  worker = await env.startWorker({
    handlers: {
      'ov.charge': async (ctx) => {
        // The first attempt of each run fails once, so its timeline shows two attempts.
        if (!charged.has(ctx.runId)) {
          charged.add(ctx.runId);
          throw new Error('card declined, once');
        }
        return { charged: true };
      },
      'ov.list': async () => ['a', 'b', 'c'],
      'ov.pack': async (ctx) => ({ packed: ctx.item }),
    },
    workflows: [order],
  });
  retried = (await env.client.submit(order, { n: 1 }, { idempotencyKey: 'order-key-1' })).runId;
  await env.client.submit(order, { n: 2 });
  for (let i = 0; i < 4; i++) await env.client.enqueue('ov.unserved', { i });
  await eventually(
    async () =>
      (
        await env.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM cyclone_runs WHERE state = 'completed'`,
        )
      )[0]!.n === 2,
    'both orders to complete',
    30_000,
  );
  // The worker flushes its counts every 5 s: wait for both orders' handler successes (2 x 5: charge, list, three items) to be in.
  await eventually(
    async () =>
      (
        await env.query<{ n: number }>(
          `SELECT coalesce(sum(completed), 0)::int AS n FROM cyclone_stats_minutes`,
        )
      )[0]!.n >= 10,
    'the per-minute counts to be flushed',
    30_000,
  );

  server = createServer({ client: env.client, logger: testLogger });
  base = (await server.listen(0)).url;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 800 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the overview page', () => {
  it('shows the runs by state and the queues by kind as the database holds them', async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector('#overview-page #queues-table');
    const byState = await env.query<{ state: string; n: number }>(
      'SELECT state, count(*)::int AS n FROM cyclone_runs GROUP BY state',
    );
    for (const state of ['running', 'completed', 'failed']) {
      const expected = byState.find((r) => r.state === state)?.n ?? 0;
      expect(await text(`#run-totals a[data-state="${state}"] .total-n`)).toBe(String(expected));
      const href = await page.$eval(`#run-totals a[data-state="${state}"]`, (a) =>
        a.getAttribute('href'),
      );
      expect(href).toBe(`#/runs?state=${state}`);
    }
    const [ready] = await env.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_steps WHERE kind = 'ov.unserved' AND state = 'available' AND scheduled_at <= now()`,
    );
    expect(await text('#queues-table tr[data-kind="ov.unserved"] td[data-col="ready"]')).toBe(
      String(ready!.n),
    );
    expect(ready!.n).toBe(4);
    expect(await text('#queues-table tr[data-kind="ov.charge"] td[data-col="running"]')).toBe('0');
  });

  it('charts the last hour’s throughput as the stats table holds it', async () => {
    const [flushed] = await env.query<{ completed: number; failed: number }>(
      'SELECT sum(completed)::int AS completed, sum(failed)::int AS failed FROM cyclone_stats_minutes',
    );
    await page.goto(`${base}/#/overview`);
    await page.waitForSelector('#chart-throughput svg');
    const sumOf = (series: string) =>
      page.$$eval(`#chart-throughput g[data-series="${series}"] title`, (titles) =>
        titles.reduce(
          (n, t) => n + Number(/: ([\d.]+) steps$/.exec(t.textContent ?? '')?.[1] ?? 0),
          0,
        ),
      );
    expect(await sumOf('completed')).toBe(flushed!.completed);
    expect(await sumOf('failed')).toBe(flushed!.failed);
    expect(flushed!.failed).toBe(2);
    const points = await page.$$eval(
      '#chart-throughput g[data-series="completed"] circle',
      (c) => c.length,
    );
    expect(points).toBe(60);
    // Axes are labelled, and the wait chart has a point where steps started.
    expect(await page.$$eval('#chart-throughput .axis text', (t) => t.length)).toBeGreaterThan(5);
    expect(
      await page.$$eval('#chart-wait g[data-series="p95"] rect', (r) => r.length),
    ).toBeGreaterThan(0);
    await shoot('overview');
  });
});

describe('the workers page', () => {
  it('lists the live workers and drops one once it stopped', async () => {
    const second = await env.startWorker({ handlers: { 'ov.other': async () => ({}) } });
    await page.goto(`${base}/#/workers`);
    await page.waitForSelector(`#live-workers tr[data-worker="${second.id}"]`);
    const rows = await env.query<{ id: string; pid: number }>(
      `SELECT id, pid FROM cyclone_workers WHERE last_seen_at > now() - interval '30 seconds'`,
    );
    const listed = await page.$$eval('#live-workers tbody tr', (trs) =>
      trs.map((tr) => tr.getAttribute('data-worker')),
    );
    expect(listed.sort()).toEqual(rows.map((r) => r.id).sort());
    expect(await text(`#live-workers tr[data-worker="${worker.id}"] td:nth-child(3)`)).toBe(
      String(process.pid),
    );
    await shoot('workers');

    await second.stop({ timeout: '5s' });
    await page.goto(`${base}/#/overview`);
    await page.goto(`${base}/#/workers`);
    // The page renders after the hash changes: until it has, the old list is still shown, so
    // wait for a list without the stopped worker (failing after the deadline if it never comes).
    await page.waitForFunction(
      `document.querySelector('#live-workers tr[data-worker="${worker.id}"]') !== null &&
       document.querySelector('#live-workers tr[data-worker="${second.id}"]') === null`,
      { timeout: 15_000 },
    );
    expect(await page.$(`#live-workers tr[data-worker="${second.id}"]`)).toBeNull();
  });
});

describe('a run’s timeline', () => {
  it('shows both attempts of a retried node, the backoff between them, and the fan-out summarised', async () => {
    await page.goto(`${base}/#/runs/${retried}`);
    await page.waitForSelector('#timeline g[data-step-row="charge"]');
    const attempts = await page.$$eval(
      '#timeline svg g[data-step-row="charge"] g[data-phase="running"]',
      (gs) => gs.map((g) => g.getAttribute('data-attempt')),
    );
    expect(attempts).toEqual(['1', '2']);
    expect(
      await page.$('#timeline svg g[data-step-row="charge"] g[data-phase="backoff"]'),
    ).not.toBeNull();
    const [step] = await env.query<{ attempts: number }>(
      `SELECT attempts FROM cyclone_steps WHERE run_id = $1 AND node = 'charge'`,
      [retried],
    );
    expect(step!.attempts).toBe(attempts.length);
    expect(await text('#timeline details[data-fan-out="pack"] summary')).toContain('3 items');
    expect(
      await page.$$eval('#timeline details[data-fan-out="pack"] g[data-step-row]', (g) => g.length),
    ).toBe(3);
    await shoot('run-timeline');
  });
});

describe('the runs list', () => {
  it('shows relative times with the absolute one on hover, durations, and finds a run by key or id', async () => {
    await page.goto(`${base}/#/runs`);
    await page.waitForSelector('#runs-table');
    const created = await page.$eval(
      `#runs-table tr[data-run="${retried}"] td.created time`,
      (t) => ({
        text: t.textContent,
        title: t.getAttribute('title'),
      }),
    );
    expect(created.text).toMatch(/ago$|just now/);
    expect(created.title).toMatch(/\d/);
    expect(await text(`#runs-table tr[data-run="${retried}"] td.duration`)).toMatch(
      /\d (ms|s|min)$/,
    );

    await page.type('#filter-search', 'order-key-1');
    await page.$eval('#filter-apply', (b) => (b as unknown as { click(): void }).click());
    await page.waitForFunction("location.hash.includes('q=order-key-1')");
    await page.waitForSelector('#search-matched');
    expect(await text('#search-matched')).toContain('idempotency key');
    const found = await page.$$eval('#runs-table tbody tr', (trs) =>
      trs.map((tr) => tr.getAttribute('data-run')),
    );
    expect(found).toEqual([retried]);

    // The filter lives in the URL: loading it again shows the same list.
    // Only the hash changes, so the page is not reloaded: wait for the list drawn for the new
    // filter rather than read the one still shown for the previous search.
    await page.goto(`${base}/#/runs?q=${retried}`);
    await page.waitForFunction(
      "document.querySelector('#search-matched')?.textContent?.includes('run id')",
      { timeout: 10_000 },
    );
    expect(await text('#search-matched')).toContain('run id');
    await shoot('runs-search');
  });
});
