import { hashLinkToken } from '../src/emailed-links/emailed-link';
import { MASTER, type IdentityHarness } from './support/identity-harness';
import { eventually, linkIn, pause, resetsOf, startMailPipeline, type MailPipeline } from './support/password-resets';

describe('POST /password-resets: the mail cap per e-mail address', () => {
  let pipeline: MailPipeline;
  let h: IdentityHarness;
  beforeAll(async () => {
    pipeline = await startMailPipeline();
    h = await pipeline.identity({ RESET_MAILS_PER_EMAIL: '2/3600' }, { abuse: true });
  });
  afterAll(() => pipeline.stop());

  const requestReset = (email: string) => h.call('post', '/password-resets', MASTER).type('form').send({ email });

  test('when one address asks five times, then every answer is the same 202, two mails go out, and only the latest token works', async () => {
    const user = await h.aUser();

    const replies = [];
    for (let i = 0; i < 5; i += 1) {
      replies.push(await requestReset(user.email));
      // Each mail leaves before the next request, so a replaced row can't hide a mail from the count.
      if (i < 2) await pipeline.waitForMailsTo(user.email, i + 1);
    }
    // Long enough for a third mail to arrive, were one sent (the relay polls every 200 ms).
    await pause(1_500);

    expect(replies.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(replies.map((r) => JSON.stringify(r.body))).size).toBe(1);
    const mails = pipeline.mailsTo(user.email);
    expect(mails).toHaveLength(2);
    const rows = await resetsOf(h, user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(hashLinkToken(linkIn(mails[1]!).token));
    expect((await h.call('get', `/password-resets/${linkIn(mails[0]!).token}`)).status).toBe(404);
    expect((await h.call('get', `/password-resets/${linkIn(mails[1]!).token}`)).status).toBe(200);
  });

  test('when 20 requests for one address race, then at most the cap of mails go out, one reset is left, and exactly one mailed link works', async () => {
    const raced = await pipeline.identity({ RESET_MAILS_PER_EMAIL: '3/3600' }, { abuse: true });
    const user = await raced.aUser();

    const replies = await Promise.all(
      Array.from({ length: 20 }, () => raced.call('post', '/password-resets', MASTER).type('form').send({ email: user.email })),
    );
    // Every reset left is mailed; a replaced one may or may not have been mailed before it ended.
    await eventually(async () => (await resetsOf(raced, user.id)).every((row) => row.mail?.status === 'sent'), {
      what: 'the mails of the resets left',
    });
    await pause(1_000);

    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(202));
    const mails = pipeline.mailsTo(user.email);
    expect(mails.length).toBeGreaterThanOrEqual(1);
    expect(mails.length).toBeLessThanOrEqual(3);
    expect(await resetsOf(raced, user.id)).toHaveLength(1);
    const looks = await Promise.all(mails.map((mail) => raced.call('get', `/password-resets/${linkIn(mail).token}`)));
    expect(looks.map((r) => r.status).filter((status) => status === 200)).toHaveLength(1);
  });
});
