import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { chromium, type Browser } from 'playwright-core';
import { aUser, signIn, signUp } from '../support/actors';
import { client, type Client } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * The reset page in a real browser (Debian's Chromium, which `npm test` installs), with the whole
 * stack: ask for a reset, open the link from the .eml the mailer wrote, type the new password in
 * the form, submit, and sign in with it. No JavaScript is involved: the page has none.
 */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-sync', '--no-first-run'];

let stack: TestStack;
let api: Client;
let browser: Browser;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
  stack = await startTestStack();
  api = client(stack.url);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** The link in the newest mail to `email`, read from the outbox as a user reads their mail. */
async function resetLinkFor(email: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const files = fs.existsSync(stack.outboxDir) ? fs.readdirSync(stack.outboxDir).filter((f) => f.endsWith('.eml')) : [];
    const mails: ParsedMail[] = await Promise.all(files.map((f) => simpleParser(fs.readFileSync(path.join(stack.outboxDir, f)))));
    // Sign-up mails a verification link to the same address: look for the reset link in each.
    const link = mails
      .filter((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.value[0]?.address === email)
      .map((m) => /https?:\/\/\S+\/password-resets\/[A-Za-z0-9_-]{43}/.exec(m.text ?? '')?.[0])
      .find(Boolean);
    if (link) return link;
    if (Date.now() > deadline) throw new Error(`no reset mail to ${email} in ${stack.outboxDir} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the password reset page in Chromium', () => {
  test('when a user opens the link from the mail and submits a new password twice, then the page says it is set and the new password signs in', async () => {
    // Arrange
    const user = aUser();
    expect((await signUp(api, stack, user)).status).toBe(201);
    expect((await api.post('/password-resets', { form: { email: user.email, access_token: stack.secrets.MASTER_KEY } })).status).toBe(202);
    const link = await resetLinkFor(user.email);
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const violations: string[] = [];
    // Chromium reports what a CSP refuses (the inline stylesheet, were its hash wrong) on the console.
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });

    try {
      // Act
      const opened = await page.goto(link);
      const heading = await page.locator('h1').textContent();
      const topbar = await page.evaluate('getComputedStyle(document.querySelector(".topbar")).backgroundColor');
      const shown = await page.locator('main').textContent();
      await page.fill('#password', 'a-browser-password');
      await page.fill('#confirmation', 'a-browser-password');
      const [answer] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      const outcome = await page.locator('h1').textContent();
      const reopened = await page.goto(link);
      const deadHeading = await page.locator('h1').textContent();

      // Assert
      expect(opened?.status()).toBe(200);
      expect(opened?.headers()['content-type']).toMatch(/^text\/html/);
      expect(heading).toBe('Choose a new password');
      expect(topbar).toBe('rgb(27, 27, 27)'); // the stylesheet applied: the CSP let exactly it in
      expect(shown).toContain(user.email);
      expect(answer?.status()).toBe(200);
      expect(answer?.request().method()).toBe('POST');
      expect(outcome).toBe('Your password is set');
      expect(reopened?.status()).toBe(404);
      expect(deadHeading).toBe('This link no longer works');
      expect(violations).toEqual([]);
      expect((await signIn(api, stack, { ...user, password: 'a-browser-password' })).status).toBe(201);
      expect((await signIn(api, stack, user)).status).toBe(401);
    } finally {
      await context.close();
    }
  }, 60_000);

  test('when the two passwords differ, then the form comes back saying so, and the link still works', async () => {
    const user = aUser();
    expect((await signUp(api, stack, user)).status).toBe(201);
    await api.post('/password-resets', { form: { email: user.email, access_token: stack.secrets.MASTER_KEY } });
    const link = await resetLinkFor(user.email);
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(link);
      await page.fill('#password', 'one-new-password');
      await page.fill('#confirmation', 'another-new-password');
      const [answer] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);

      expect(answer?.status()).toBe(400);
      expect(await page.locator('[role=alert]').textContent()).toContain('not the same');
      expect(await page.locator('form').count()).toBe(1);
      expect((await api.get(new URL(link).pathname)).status).toBe(200);
    } finally {
      await context.close();
    }
  }, 60_000);
});
