import { aUser, signIn, signUp } from '../support/actors';
import { expectLinkPageWalk, openPage, stackWithBrowser } from '../support/browser';
import { mailedLinks } from '../support/outbox';

/**
 * The reset page in a real browser (Debian's Chromium, which `npm test` installs), with the whole
 * stack: ask for a reset, open the link from the .eml the mailer wrote, type the new password in
 * the form, submit, and sign in with it. No JavaScript is involved: the page has none.
 */
const its = stackWithBrowser();

/** The reset link mailed to `email` (sign-up mails a verification link to the same address too). */
async function resetLinkFor(email: string): Promise<string> {
  const [link] = await mailedLinks(its.stack.outboxDir, email, 'password-resets');
  return link!;
}

describe('the password reset page in Chromium', () => {
  test('when a user opens the link from the mail and submits a new password twice, then the page says it is set and the new password signs in', async () => {
    // Arrange
    const user = aUser();
    expect((await signUp(its.api, its.stack, user)).status).toBe(201);
    expect((await its.api.post('/password-resets', { form: { email: user.email, access_token: its.stack.secrets.MASTER_KEY } })).status).toBe(202);
    const link = await resetLinkFor(user.email);
    const { page, cspViolations: violations, close } = await openPage(its.browser);

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
      expectLinkPageWalk({ opened, topbar, answer, reopened, deadHeading, violations });
      expect(heading).toBe('Choose a new password');
      expect(shown).toContain(user.email);
      expect(outcome).toBe('Your password is set');
      expect((await signIn(its.api, its.stack, { ...user, password: 'a-browser-password' })).status).toBe(201);
      expect((await signIn(its.api, its.stack, user)).status).toBe(401);
    } finally {
      await close();
    }
  }, 60_000);

  test('when the two passwords differ, then the form comes back saying so, and the link still works', async () => {
    const user = aUser();
    expect((await signUp(its.api, its.stack, user)).status).toBe(201);
    await its.api.post('/password-resets', { form: { email: user.email, access_token: its.stack.secrets.MASTER_KEY } });
    const link = await resetLinkFor(user.email);
    const { page, close } = await openPage(its.browser);
    try {
      await page.goto(link);
      await page.fill('#password', 'one-new-password');
      await page.fill('#confirmation', 'another-new-password');
      const [answer] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);

      expect(answer?.status()).toBe(400);
      expect(await page.locator('[role=alert]').textContent()).toContain('not the same');
      expect(await page.locator('form').count()).toBe(1);
      expect((await its.api.get(new URL(link).pathname)).status).toBe(200);
    } finally {
      await close();
    }
  }, 60_000);
});
