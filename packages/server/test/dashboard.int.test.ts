/**
 * The dashboard in a real headless browser (Debian's chromium, driven by puppeteer-core) against
 * a real Postgres that a worker fills: the pages show what the database holds, user data is
 * escaped, and actions taken through the confirmation dialog change the database, with or
 * without a token. Screenshots go to reports/screenshots/ at the repository root.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permanent, workflow } from '@cyclone/core';
import { launchChromium, press as pressIn } from './chromium.js';
import { eventually, testLogger, useServer } from './support.js';
import { createServer, type CycloneServer } from '../src/index.js';

const env = useServer();

const screenshots = path.join(
  fileURLToPath(new URL('../../..', import.meta.url)),
  'reports',
  'screenshots',
);

/** User data that would run a script if the dashboard rendered it as HTML. */
const hostile = '<img src=x onerror="window.__xss=1">';

const shop = workflow('shop')
  .task('charge', 'shop.charge')
  .task('pack', 'shop.pack', { dependsOn: ['charge'], maxAttempts: 1 })
  .task('label', 'shop.label', { dependsOn: ['charge'] })
  .task('ship', 'shop.ship', { dependsOn: ['pack', 'label'] })
  .build();
const approval = workflow('approval')
  .task('prepare', 'shop.charge')
  .waitSignal('approve', { signal: 'approved', dependsOn: ['prepare'] })
  .task('publish', 'shop.ship', { dependsOn: ['approve'] })
  .build();

const cachedReport = workflow('cached-report')
  .task('render', 'shop.label', { cache: { ttl: '1h', key: 'doc' } })
  .build();

let browser: Browser;
let page: Page;
let server: CycloneServer;
let base: string;
let flaky: string;
let broken: string;
let waiting: string;

async function shoot(name: string): Promise<void> {
  const file = path.join(screenshots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
}

/** Clicks the element `selector` names in the dashboard's page. */
const press = (selector: string) => pressIn(page, selector);

async function confirm(): Promise<void> {
  await press('dialog#confirm[open] #confirm-yes');
}

/** The state of a standalone job's one step. */
const stateOfStep = async (runId: string) =>
  (
    await env.query<{ state: string }>('SELECT state FROM cyclone_steps WHERE run_id = $1', [runId])
  )[0]?.state;

const stateOf = async (runId: string) =>
  (await env.query<{ state: string }>('SELECT state FROM cyclone_runs WHERE id = $1', [runId]))[0]
    ?.state;

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  const packedOnce = new Set<string>();
  await env.startWorker({
    handlers: {
      'shop.charge': async () => ({ charged: true }),
      'shop.label': async () => ({ label: 'L-1' }),
      'shop.ship': async () => ({ shipped: true }),
      'shop.pack': async (ctx) => {
        const input = ctx.input as { mode: string };
        if (input.mode === 'broken') throw permanent(new Error(`bad box ${hostile}`));
        if (input.mode === 'flaky' && !packedOnce.has(ctx.runId)) {
          packedOnce.add(ctx.runId);
          throw permanent(new Error('tape ran out'));
        }
        return { packed: true };
      },
    },
    workflows: [shop, approval],
  });
  flaky = (await env.client.submit(shop, { mode: 'flaky' })).runId;
  broken = (await env.client.submit(shop, { mode: 'broken', note: hostile })).runId;
  waiting = (await env.client.submit(approval, { doc: 'spring catalogue' })).runId;
  await env.client.schedule({
    id: 'nightly-report',
    cron: '0 3 * * *',
    kind: 'shop.ship',
    input: {},
  });
  await eventually(
    async () => (await stateOf(flaky)) === 'failed' && (await stateOf(broken)) === 'failed',
    'both shop runs to fail',
  );

  server = createServer({ client: env.client, logger: testLogger });
  base = (await server.listen(0)).url;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the dashboard', () => {
  it('lists the runs the database holds and filters them by state', async () => {
    await page.goto(`${base}/#/runs`);
    await page.waitForSelector('#runs-table');
    const listed = await page.$$eval('#runs-table tbody tr', (rows) =>
      rows.map((row) => row.getAttribute('data-run')),
    );
    expect(listed.sort()).toEqual([flaky, broken, waiting].sort());
    await shoot('runs');

    await page.select('#filter-state', 'failed');
    await press('#filter-apply');
    // Functions run in the page are given as text: this file is type-checked without the DOM's types.
    await page.waitForFunction("location.hash.includes('state=failed')");
    await page.waitForFunction("document.querySelectorAll('#runs-table tbody tr').length === 2");
    const failed = await page.$$eval('#runs-table tbody tr', (rows) =>
      rows.map((row) => row.getAttribute('data-run')),
    );
    expect(failed.sort()).toEqual([flaky, broken].sort());
  });

  it("draws a run's graph coloured by state, its steps and events, with user data escaped", async () => {
    await page.goto(`${base}/#/runs/${broken}`);
    await page.waitForSelector(`#run-page[data-run="${broken}"] #dag g[data-node="pack"]`);
    const nodes = await page.$$eval('#dag g[data-node]', (gs) =>
      Object.fromEntries(
        gs.map((g) => [g.getAttribute('data-node'), g.getAttribute('data-state')]),
      ),
    );
    expect(nodes).toMatchObject({ charge: 'completed', pack: 'discarded', ship: 'cancelled' });
    // label ran beside pack: completed, or cancelled by the fail-fast if it had not started.
    expect(['completed', 'cancelled']).toContain(nodes.label);
    expect(await page.$$eval('#dag path.edge', (edges) => edges.length)).toBe(4);
    const steps = await page.$eval('#steps-table', (t) => t.textContent ?? '');
    expect(steps).toContain('bad box');
    // The error is shown as text, and its markup never became an element or ran.
    expect(steps).toContain(hostile);
    expect(await page.$('#steps-table img')).toBeNull();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.$$eval('#events-table tbody tr', (rows) => rows.length)).toBeGreaterThan(3);
    // Explanations come from the explain route; until the client has it, the page says so.
    // Explanations come from the explain route: shown for every node not running once the client
    // has `explain`, and said once to be unavailable until then.
    if (typeof (env.client as { explain?: unknown }).explain === 'function') {
      const why = await page.$eval('#steps-table tr[data-node="ship"] td:nth-child(7)', (td) =>
        (td.textContent ?? '').trim(),
      );
      expect(why).not.toBe('');
    } else {
      expect(await page.$eval('#explain-unsupported', (el) => el.textContent)).toContain(
        'cannot explain',
      );
    }

    await press('#dag g[data-node="pack"]');
    await page.waitForSelector('#node-detail');
    await shoot('run');
  });

  it('retries a discarded node through the confirmation and sees the run complete live', async () => {
    await page.goto(`${base}/#/runs/${flaky}`);
    // Scoped to this run: until the new page renders, the previous run's page (with a retry
    // button of its own) is still shown.
    await press(`#run-page[data-run="${flaky}"] button[data-retry="pack"]`);
    await confirm();
    await eventually(
      async () => (await stateOf(flaky)) === 'completed',
      'the retried run to complete',
    );
    // The event stream tells the page; it reloads without being asked.
    await page.waitForSelector(`#run-page[data-run="${flaky}"][data-state="completed"]`, {
      timeout: 15_000,
    });
    expect(
      await page.$$eval('#dag g[data-node]', (gs) => gs.map((g) => g.getAttribute('data-state'))),
    ).toEqual(['completed', 'completed', 'completed', 'completed']);
  });

  it('cancels a waiting run only once confirmed', async () => {
    await eventually(
      async () =>
        (
          await env.query(
            "SELECT 1 FROM cyclone_steps WHERE run_id = $1 AND node = 'approve' AND state = 'waiting_signal'",
            [waiting],
          )
        ).length === 1,
      'the approval to wait',
    );
    await page.goto(`${base}/#/runs/${waiting}`);
    await press(`#run-page[data-run="${waiting}"] #action-cancel`);
    await page.waitForSelector('dialog#confirm[open]');
    await press('#confirm-no');
    await page.waitForSelector('dialog#confirm:not([open])');
    expect(await stateOf(waiting)).toBe('running');

    await press('#action-cancel');
    await confirm();
    await eventually(
      async () => (await stateOf(waiting)) === 'cancelled',
      'the run to be cancelled',
    );
    await page.waitForSelector(`#run-page[data-run="${waiting}"][data-state="cancelled"]`);
  });

  it('forces a waiting node through its dialog and shows the event as forced with the reason', async () => {
    const held = (await env.client.submit(approval, { doc: 'winter catalogue' })).runId;
    await eventually(
      async () =>
        (
          await env.query(
            "SELECT 1 FROM cyclone_steps WHERE run_id = $1 AND node = 'approve' AND state = 'waiting_signal'",
            [held],
          )
        ).length === 1,
      'the approval to wait',
    );
    await page.goto(`${base}/#/runs/${held}`);
    await press(`#run-page[data-run="${held}"] button[data-force="approve"]`);
    await page.waitForSelector('dialog#confirm[open] #force-reason');
    await page.type('#force-output', '{"payload":"ok","timedOut":false}');
    await page.type('#force-reason', 'approved by phone');
    await confirm();
    await eventually(
      async () =>
        (
          await env.query(
            "SELECT 1 FROM cyclone_steps WHERE run_id = $1 AND node = 'approve' AND state = 'completed'",
            [held],
          )
        ).length === 1,
      'the approval to be forced',
    );
    const forced = await page.waitForSelector(
      `#run-page[data-run="${held}"] #events-table .forced[data-forced="true"]`,
      { timeout: 15_000 },
    );
    expect(await forced!.evaluate((el) => el.textContent)).toContain('approved by phone');
    expect(await env.client.output(held, 'approve')).toEqual({ payload: 'ok', timedOut: false });
  });

  it('shows the DLQ grouped by reason', async () => {
    await page.goto(`${base}/#/dlq`);
    await page.waitForSelector('[data-reason="permanent"]');
    const text = await page.$eval('[data-reason="permanent"]', (el) => el.textContent ?? '');
    expect(text).toContain('permanent (1)');
    const runs = await page.$$eval('[data-reason="permanent"] tbody tr', (rows) =>
      rows.map((row) => row.getAttribute('data-run')),
    );
    expect(runs).toEqual([broken]);
    await shoot('dlq');
  });

  it('shows the schedules with their fires and pauses one through the confirmation', async () => {
    const to = new Date(Date.now() - 60_000);
    await env.client.backfill('nightly-report', {
      from: new Date(to.getTime() - 2 * 86_400_000),
      to,
    });
    await page.goto(`${base}/#/schedules`);
    await page.waitForSelector('[data-schedule="nightly-report"] tbody tr');
    expect(
      await page.$$eval('[data-schedule="nightly-report"] tbody tr', (rows) => rows.length),
    ).toBe(2);
    expect(await page.$eval('[data-schedule="nightly-report"]', (el) => el.textContent)).toContain(
      '0 3 * * *',
    );
    await press('button[data-toggle="nightly-report"]');
    await confirm();
    await eventually(
      async () =>
        (await env.query("SELECT enabled FROM cyclone_schedules WHERE id = 'nightly-report'"))[0]
          ?.enabled === false,
      'the schedule to be paused',
    );
    await page.waitForFunction(
      `document.querySelector('[data-schedule="nightly-report"]')?.textContent?.includes('Resume')`,
    );
    await shoot('schedules');
  });

  it('asks a browser for the token of a protected server and works once given it', async () => {
    const secured = createServer({ client: env.client, token: 'dash-secret', logger: testLogger });
    const url = (await secured.listen(0)).url;
    const guarded = await browser.newPage();
    const held = (await env.client.submit(approval, { doc: 'autumn catalogue' })).runId;
    try {
      expect((await fetch(`${url}/`)).status).toBe(401);
      // What the browser's credentials prompt sends: any user name, the token as the password.
      await guarded.authenticate({ username: 'ops', password: 'dash-secret' });
      const accepted = await guarded.goto(`${url}/#/runs`);
      expect(accepted?.status()).toBe(200);
      await guarded.waitForSelector('#runs-table tbody tr');
      // The event stream is authorised by the same credentials.
      await guarded.waitForFunction("document.getElementById('live').textContent === 'live'");

      // The cached Basic credentials alone change nothing, even from the dashboard's own origin.
      const basicOnly = await guarded.evaluate(
        `fetch('/api/runs/${held}/pause', { method: 'POST', headers: { 'Content-Type': 'application/json' } }).then(async (r) => [r.status, (await r.json()).error.code])`,
      );
      expect(basicOnly).toEqual([403, 'BEARER_REQUIRED']);
      expect(await stateOf(held)).toBe('running');

      // The dashboard's own action sends the token as Bearer and goes through.
      await guarded.goto(`${url}/#/runs/${held}`);
      await pressIn(guarded, `#run-page[data-run="${held}"] #action-pause`);
      await pressIn(guarded, 'dialog#confirm[open] #confirm-yes');
      await eventually(async () => (await stateOf(held)) === 'paused', 'the run to be paused');
    } finally {
      await guarded.close();
      await secured.close();
    }
  });
  it('lists the flow limits as the database holds them, and labels a held step AwaitingResource', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A kind under fair share that no worker serves: its step stays claimable.
    await env.client.setFairShare({ kind: 'shop.fair', weights: { vip: 3 } });
    await env.client.enqueue('shop.fair', {}, { concurrencyKey: 'vip' });
    await env.client.setConcurrencyLimit({ kind: 'shop.slow', max: 1 });
    await env.client.setRateLimit({ kind: 'shop.slow', limit: 50, period: '1m', perKey: true });
    await env.startWorker({
      handlers: { 'shop.slow': () => gate },
      concurrency: 2,
    });
    try {
      const first = (await env.client.enqueue('shop.slow', {})).runId;
      const held = (await env.client.enqueue('shop.slow', {})).runId;
      await eventually(
        async () => (await env.client.listConcurrencyLimits())[0]?.running === 1,
        'one slow step to run',
      );
      const [row] = await env.query<{ running: number; ready: number }>(
        `SELECT count(*) FILTER (WHERE state = 'running')::int AS running,
                count(*) FILTER (WHERE state = 'available')::int AS ready
         FROM cyclone_steps WHERE kind = 'shop.slow'`,
      );
      expect(row).toEqual({ running: 1, ready: 1 });

      await page.goto(`${base}/#/runs`);
      await page.waitForSelector('#runs-table');
      await press('a[data-nav="limits"]');
      await page.waitForSelector('#limits-table [data-limit="concurrency:shop.slow"]');
      const cells = (selector: string) =>
        page.$$eval(`${selector} td`, (tds) => tds.map((td) => td.textContent ?? ''));
      expect(await cells('[data-limit="concurrency:shop.slow"]')).toEqual([
        'shop.slow',
        'concurrency',
        '1 at once',
        'no',
        '1',
        '1',
      ]);
      expect(await cells('[data-limit="rate:shop.slow"]')).toEqual([
        'shop.slow',
        'rate',
        '50 per 1m',
        'yes',
        '',
        '',
      ]);
      expect(await cells('#fair-share-table [data-fair-share="shop.fair"]')).toEqual([
        'shop.fair',
        'vip ×3; others 1',
        '1',
      ]);
      await shoot('limits');

      // The overview's queues tell the kind's keys and its most-starved key.
      await press('a[data-nav="overview"]');
      const fairCell = '#queues-table tr[data-kind="shop.fair"] td[data-col="fairShare"]';
      await page.waitForSelector(fairCell);
      const fairText = await page.$eval(fairCell, (td) => td.textContent ?? '');
      expect(fairText).toMatch(/^1 key; most starved vip \d/);
      expect(
        await page.$eval(
          `#queues-table tr[data-kind="shop.slow"] td[data-col="fairShare"]`,
          (td) => td.textContent,
        ),
      ).toBe('');

      // Whichever step the worker took, the other one is held back by the cap.
      const running = (await stateOfStep(first)) === 'running' ? first : held;
      const waiting = running === first ? held : first;
      await page.goto(`${base}/#/runs/${waiting}`);
      await page.waitForSelector(
        `#run-page[data-run="${waiting}"] #steps-table [data-label="AwaitingResource"]`,
      );
      const why = await page.$eval('#steps-table tbody tr', (tr) => tr.textContent ?? '');
      expect(why).toContain('available');
      expect(why).toContain('The concurrency cap of kind shop.slow (1) is full');
      await shoot('awaiting-resource');
    } finally {
      release();
    }
    await env.client.removeConcurrencyLimit('shop.slow');
    await env.client.removeRateLimit('shop.slow');
  });

  it('labels a step completed from the result cache Cached', async () => {
    const first = (await env.client.submit(cachedReport, { doc: 'd-1' })).runId;
    await eventually(async () => (await stateOf(first)) === 'completed', 'the first report');
    const second = (await env.client.submit(cachedReport, { doc: 'd-1' })).runId;
    await eventually(async () => (await stateOf(second)) === 'completed', 'the cached report');
    const [row] = await env.query<{ cached: boolean }>(
      'SELECT cached FROM cyclone_steps WHERE run_id = $1',
      [second],
    );
    expect(row?.cached).toBe(true);
    await page.goto(`${base}/#/runs/${second}`);
    await page.waitForSelector(
      `#run-page[data-run="${second}"] #steps-table tr[data-node="render"] [data-label="Cached"]`,
    );
    const text = await page.$eval('#steps-table tr[data-node="render"]', (tr) => tr.textContent);
    expect(text).toContain('completed');
  });
});
