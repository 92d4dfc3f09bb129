/**
 * Debian's chromium for the browser tests, driven by puppeteer-core (which downloads no browser).
 */
import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches headless chromium; fails saying how to install it when it is missing. */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `chromium is not installed at ${chromiumPath}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
  return puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', ...extraArgs],
  });
}

/**
 * Clicks the element `selector` names, found and clicked in one step inside the page: a live
 * update may re-render the page between a lookup and a separate click.
 */
export async function press(page: Page, selector: string): Promise<void> {
  await page.waitForSelector(selector);
  // A dispatched event, not `.click()`: SVG elements (the graph's nodes) have no click method.
  await page.evaluate(
    `document.querySelector(${JSON.stringify(selector)}).dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }))`,
  );
}
