/**
 * Debian's Chromium (which `npm test` installs), driven by playwright-core, for the pages a user
 * opens: the reset and verification pages, the API docs.
 */
import fs from 'node:fs';
import { chromium, type Browser, type Page, type Response } from 'playwright-core';
import { client, type Client } from './http';
import { startTestStack, type TestStack } from './stack';

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

/**
 * The whole stack, a client of its gateway and Chromium, for the tests of one file: started in its
 * `beforeAll`, stopped in its `afterAll`. The fields are set once `beforeAll` has run.
 */
export function stackWithBrowser(options: Parameters<typeof startTestStack>[0] = {}): { stack: TestStack; api: Client; browser: Browser } {
  const its = {} as { stack: TestStack; api: Client; browser: Browser };
  beforeAll(async () => {
    its.stack = await startTestStack(options);
    its.api = client(its.stack.url);
    its.browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await its.browser?.close();
    await its.stack?.stop();
  });
  return its;
}

/** What opening an e-mailed link's page, submitting its form and opening the link again showed. */
export interface LinkPageWalk {
  opened: Response | null;
  /** The top bar's background colour. */
  topbar: unknown;
  answer: Response | null;
  reopened: Response | null;
  deadHeading: string | null;
  violations: string[];
}

/**
 * What every e-mailed link's page does: HTML, its own stylesheet let in by its CSP and nothing
 * refused, a form that POSTs, and once used, the page of a dead link (404).
 */
export function expectLinkPageWalk(walk: LinkPageWalk): void {
  expect(walk.opened?.status()).toBe(200);
  expect(walk.opened?.headers()['content-type']).toMatch(/^text\/html/);
  expect(walk.topbar).toBe('rgb(27, 27, 27)');
  expect(walk.answer?.status()).toBe(200);
  expect(walk.answer?.request().method()).toBe('POST');
  expect(walk.reopened?.status()).toBe(404);
  expect(walk.deadHeading).toBe('This link no longer works');
  expect(walk.violations).toEqual([]);
}
