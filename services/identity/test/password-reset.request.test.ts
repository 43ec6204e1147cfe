import { randomEmail } from '@restgate/shared/testing';
import { hashLinkToken } from '../src/emailed-links/emailed-link';
import { expectProblem, MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';
import { mailRowsTo, resets, resetsOf, TOKEN_PATTERN } from './support/password-resets';

/**
 * POST /password-resets without a broker: what is stored, and what the caller sees. The relay
 * is not started here; password-reset.mail.test.ts follows the mail to the SMTP server.
 */
describe('POST /password-resets', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity({ RESET_LINK_ORIGINS: 'https://app.example.test,http://localhost:3000' });
  });
  afterAll(() => h.close());

  const requestReset = (body: Record<string, string>, requestId?: string) => {
    const req = h.call('post', '/password-resets', MASTER);
    return (requestId ? req.set('X-Request-Id', requestId) : req).type('form').send(body);
  };

  test('when the e-mail is registered, then 202 and one row holds the token hash, the expiry and the pending mail with the request id', async () => {
    const user = await h.aUser({ name: 'Ada' });
    const before = Date.now();

    const res = await requestReset({ email: `  ${user.email.toUpperCase()} ` }, 'req-reset-registered');

    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'accepted', message: expect.any(String) });
    const [row, ...others] = await resetsOf(h, user.id);
    expect(others).toEqual([]);
    expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 3_600_000 - 1_000);
    expect(row!.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect(row!.mail).toMatchObject({ status: 'pending', attempts: 0, sentAt: null });
    const envelope = row!.mail!.envelope;
    expect(envelope).toMatchObject({
      type: 'mail.password-reset',
      requestId: 'req-reset-registered',
      data: { to: user.email, expiresAt: row!.expiresAt.toISOString() },
    });
    // An address not proven yet is greeted neutrally: no name chosen at sign-up reaches it.
    expect(envelope.data).not.toHaveProperty('name');
    // Only the hash is stored: the token is in the link (the mail) and nowhere else.
    const token = envelope.data.link.split('/').pop()!;
    expect(token).toMatch(new RegExp(`^${TOKEN_PATTERN.source}$`));
    expect(hashLinkToken(token)).toBe(row!.tokenHash);
    expect(JSON.stringify({ ...row, mail: { ...row!.mail, envelope: undefined } })).not.toContain(token);
  });

  test('when the e-mail is unknown, then the same status, body and headers, and no mail is queued', async () => {
    const user = await h.aUser();
    const unknown = randomEmail('nobody');

    const known = await requestReset({ email: user.email });
    const stranger = await requestReset({ email: unknown });

    const comparable = (headers: Record<string, string>) => {
      const { date: _date, 'x-request-id': _id, ...rest } = headers;
      return rest;
    };
    expect(stranger.status).toBe(known.status);
    expect(stranger.body).toEqual(known.body);
    expect(comparable(stranger.headers)).toEqual(comparable(known.headers));
    expect(await mailRowsTo(h, unknown)).toEqual([]);
    expect(await mailRowsTo(h, user.email)).toHaveLength(1);
  });

  test('when the e-mail is unknown, then the work done is the same: one stored row that no token opens and that sends nothing', async () => {
    const before = await resets(h).countDocuments({ userId: null });

    await requestReset({ email: randomEmail('nobody') });

    const standIns = await resets(h).find({ userId: null }).toArray();
    expect(standIns).toHaveLength(before + 1);
    expect(standIns.every((row) => row.mail === null)).toBe(true);
  });

  test.each([
    ['an allowed origin', 'https://app.example.test/account/reset', 'https://app.example.test/account/reset/'],
    ['an allowed origin with a port, and a trailing slash', 'http://localhost:3000/reset/', 'http://localhost:3000/reset/'],
    ['another origin', 'https://evil.example.net/reset', 'http://127.0.0.1:9000/password-resets/'],
    [
      'an allowed origin as the prefix of another host',
      'https://app.example.test.evil.example.net/reset',
      'http://127.0.0.1:9000/password-resets/',
    ],
    ['no link', undefined, 'http://127.0.0.1:9000/password-resets/'],
    // Read as a browser reads it: the mail carries the normalised link, never no mail at all.
    ['an allowed origin in capitals', 'HTTPS://APP.Example.TEST/Account/Reset', 'https://app.example.test/Account/Reset/'],
    ['an allowed origin and no path', 'https://app.example.test', 'https://app.example.test/'],
  ])('when the link has %s, then the mail links to the right page', async (_label, link, page) => {
    const user = await h.aUser();

    const res = await h
      .call('post', '/password-resets', MASTER)
      .set('Host', 'attacker.example.net')
      .set('X-Forwarded-Host', 'attacker.example.net')
      .send(link === undefined ? { email: user.email } : { email: user.email, link });

    expect(res.status).toBe(202);
    const [row] = await resetsOf(h, user.id);
    expect(row!.mail!.envelope.data.link).toMatch(new RegExp(`^${page.replace(/[.?/]/g, '\\$&')}${TOKEN_PATTERN.source}$`));
  });

  test('when the same user asks twice, then the second token and mail replace the first (tokens never pile up)', async () => {
    const user = await h.aUser();

    await requestReset({ email: user.email });
    const [first] = await resetsOf(h, user.id);
    await requestReset({ email: user.email });

    const rows = await resetsOf(h, user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).not.toBe(first!.tokenHash);
    expect(rows[0]!.mail!.envelope.id).not.toBe(first!.mail!.envelope.id);
  });

  test('when 20 requests for one user race without a cap, then exactly one reset is left, with its mail', async () => {
    const user = await h.aUser();

    const replies = await Promise.all(Array.from({ length: 20 }, () => requestReset({ email: user.email })));

    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(202));
    const rows = await resetsOf(h, user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.mail).toMatchObject({ status: 'pending', envelope: { data: { to: user.email } } });
  });

  test.each([
    ['no e-mail', {}, 'email'],
    ['a malformed e-mail', { email: 'not-an-email' }, 'email'],
    ['an e-mail as an operator', { 'email[$ne]': 'x' }, 'email'],
    ['a link that is not a URL', { email: 'ada@example.test', link: 'not a url' }, 'link'],
    ['a javascript: link', { email: 'ada@example.test', link: 'javascript:alert(1)' }, 'link'],
    // The token is appended to the link's path: in a query it would land in `?next=<token>`.
    ['a link with a query string', { email: 'ada@example.test', link: 'https://app.example.test/reset?next=/home' }, 'link'],
    ['a link with an empty query string', { email: 'ada@example.test', link: 'https://app.example.test/reset?' }, 'link'],
    ['a link with a fragment', { email: 'ada@example.test', link: 'https://app.example.test/reset#form' }, 'link'],
    ['a link with credentials', { email: 'ada@example.test', link: 'https://user:pw@app.example.test/reset' }, 'link'],
  ])('when the body has %s, then 400 naming %s and nothing is stored', async (_label, body, param) => {
    const before = await resets(h).countDocuments();

    const res = await requestReset(body as Record<string, string>);

    expectProblem(res, 400, param);
    expect(await resets(h).countDocuments()).toBe(before);
  });

  test('when the caller is not the master key, then 401 (anonymous) or 403 (a user), and nothing is stored', async () => {
    const user = await h.aUser();

    const anonymous = await h.call('post', '/password-resets').send({ email: user.email });
    const asUser = await h.call('post', '/password-resets', user.principal).send({ email: user.email });

    expectProblem(anonymous, 401);
    expectProblem(asUser, 403);
    expect(await resetsOf(h, user.id)).toEqual([]);
  });
});

describe('password_resets indexes', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  test('the token hash is unique, and expiresAt is indexed: with a TTL where the server has them (MongoDB), plainly where not (FerretDB)', async () => {
    const indexes = await resets(h).listIndexes().toArray();
    const byName = Object.fromEntries(indexes.map((i) => [i.name, i]));

    expect(byName.token_hash_unique).toMatchObject({ key: { tokenHash: 1 }, unique: true });
    expect(byName.user_id).toMatchObject({ key: { userId: 1 } });
    expect(byName.mail_pending).toMatchObject({ key: { 'mail.status': 1, 'mail.nextAttemptAt': 1 } });
    const expiry = byName.expires_at_ttl ?? byName.expires_at;
    expect(expiry).toMatchObject({ key: { expiresAt: 1 } });
    if (byName.expires_at_ttl) expect(byName.expires_at_ttl.expireAfterSeconds).toBe(0);
  });

  test('when the indexes are made again (a restart), then nothing fails', async () => {
    await expect(h.ensureIndexes()).resolves.toBeUndefined();
  });
});
