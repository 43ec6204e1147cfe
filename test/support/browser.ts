/**
 * Debian's Chromium (which `npm test` installs), driven by playwright-core, for the pages a user
 * opens: the reset and verification pages, the API docs.
 */
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-sync', '--no-first-run'];

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: npm test installs it (apt-get install -y chromium)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/**
 * A page in a fresh context with JavaScript off (the pages work without it), and what Chromium
 * reports its Content Security Policy refused (an inline stylesheet whose hash were wrong, say).
 */
export async function openPage(browser: Browser): Promise<{ page: Page; cspViolations: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspViolations.push(msg.text());
  });
  return { page, cspViolations, close: () => context.close() };
}
