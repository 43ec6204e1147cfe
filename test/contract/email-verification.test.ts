import { aUser, signIn, signUp } from '../support/actors';
import { expectLinkPageWalk, openPage, stackWithBrowser } from '../support/browser';
import { mailedLinks } from '../support/outbox';
import { expectProblem, expectShape, userFullView } from '../support/shapes';

/**
 * E-mail verification through the gateway, with the whole stack and `REQUIRE_VERIFIED_EMAIL` on:
 * the sign-up's mail lands in the stack's outbox folder (the mailer's .eml files), and its link is
 * used as a user uses it — by an API client, and in a real browser (Debian's Chromium).
 */
const its = stackWithBrowser({ env: { REQUIRE_VERIFIED_EMAIL: 'true' } });

/** The verification links in the mails to `email`, once there are `count`. */
const verificationLinksFor = (email: string, count = 1, timeoutMs = 20_000) =>
  mailedLinks(its.stack.outboxDir, email, 'email-verifications', { count, timeoutMs });

const askAgain = (email: string) => its.api.post('/email-verifications', { form: { email, access_token: its.stack.secrets.MASTER_KEY } });

describe('e-mail verification through the gateway', () => {
  test('when a user signs up, then sign-in is refused until the mailed link is used, and then /users/me says emailVerified', async () => {
    // Arrange
    const user = aUser();
    const created = await signUp(its.api, its.stack, user);

    // Act
    const refused = await signIn(its.api, its.stack, user);
    const [link] = await verificationLinksFor(user.email);
    const token = new URL(link!).pathname.split('/').pop()!;
    const look = await its.api.get(`/email-verifications/${token}`);
    const verified = await its.api.request('PUT', `/email-verifications/${token}`);
    const again = await its.api.request('PUT', `/email-verifications/${token}`);
    const session = await signIn(its.api, its.stack, user);
    const me = await its.api.get('/users/me', { bearer: session.body.token });

    // Assert
    expect(created.status).toBe(201);
    expectShape(created.body, userFullView, 'the new user');
    expect(created.body.emailVerified).toBe(false);
    expectProblem(refused, 403, { code: 'email_unverified' });
    expect(refused.body.detail).toContain('POST /email-verifications');
    // The stack's default page is its own gateway's.
    expect(link).toBe(`${its.stack.url}/email-verifications/${token}`);
    expect(look.status).toBe(200);
    expect(look.body).toEqual({ user: { id: created.body.id, name: created.body.name, picture: created.body.picture, email: user.email } });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ ...created.body, emailVerified: true });
    expectProblem(again, 404, { code: 'email_verification_not_found' });
    expect(session.status).toBe(201);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ ...created.body, emailVerified: true, mfa: { totp: false } });
  });

  test('when a new link is asked, then the same 202 for a pending, an unknown and a verified address, and only the pending one gets a mail whose link works', async () => {
    const pending = aUser();
    await signUp(its.api, its.stack, pending);
    const [first] = await verificationLinksFor(pending.email);
    const stranger = aUser();

    const forPending = await askAgain(pending.email);
    const forStranger = await askAgain(stranger.email);
    const links = await verificationLinksFor(pending.email, 2);
    const latest = links.find((l) => l !== first)!;
    const oldOne = await its.api.request('PUT', new URL(first!).pathname);
    const newOne = await its.api.request('PUT', new URL(latest).pathname);
    const forVerified = await askAgain(pending.email);

    expect([forPending.status, forStranger.status, forVerified.status]).toEqual([202, 202, 202]);
    expect(forStranger.body).toEqual(forPending.body);
    expect(forVerified.body).toEqual(forPending.body);
    expectProblem(oldOne, 404);
    expect(newOne.status).toBe(200);
    expect(newOne.body.emailVerified).toBe(true);
    // The gateway counts these requests per client address, as it does reset requests.
    expect(forPending.headers.get('ratelimit-policy')).toMatch(/"email-verifications[a-z-]*";q=\d+;w=3600/);
  });

  test('when a user opens the link from the mail in a browser and confirms, then the page says the address is confirmed', async () => {
    // Arrange
    const user = aUser();
    expect((await signUp(its.api, its.stack, user)).status).toBe(201);
    const [link] = await verificationLinksFor(user.email);
    const { page, cspViolations: violations, close } = await openPage(its.browser);

    try {
      // Act
      const opened = await page.goto(link!);
      const heading = await page.locator('h1').textContent();
      const shown = await page.locator('main').textContent();
      const topbar = await page.evaluate('getComputedStyle(document.querySelector(".topbar")).backgroundColor');
      const unverifiedYet = (await signIn(its.api, its.stack, user)).status;
      const [answer] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      const outcome = await page.locator('h1').textContent();
      const reopened = await page.goto(link!);
      const deadHeading = await page.locator('h1').textContent();

      // Assert
      expectLinkPageWalk({ opened, topbar, answer, reopened, deadHeading, violations });
      expect(heading).toBe('Confirm your e-mail address');
      expect(shown).toContain(user.email);
      expect(unverifiedYet).toBe(403); // opening the link alone verifies nothing
      expect(outcome).toBe('Your e-mail address is confirmed');
      expect((await signIn(its.api, its.stack, user)).status).toBe(201);
    } finally {
      await close();
    }
  }, 60_000);
});
