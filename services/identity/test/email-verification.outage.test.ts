import { randomEmail } from '@restgate/shared/testing';
import { ObjectId } from 'mongodb';
import { EMAIL_VERIFICATIONS_COLLECTION, type LinkTokenDocument } from '../src/data/link-token.repository';
import { MASTER, type IdentityHarness } from './support/identity-harness';
import {
  brokerPort,
  eventually,
  pause,
  startMailPipeline,
  startTcpProxy,
  viaProxy,
  type MailPipeline,
  type TcpProxy,
} from './support/password-resets';

jest.setTimeout(40_000);

/** The verification mail when RabbitMQ is away from identity: reached through a TCP proxy the test cuts. */
describe('sign-up while the broker is unreachable', () => {
  let pipeline: MailPipeline;
  let proxy: TcpProxy;
  let h: IdentityHarness;
  beforeAll(async () => {
    pipeline = await startMailPipeline();
    proxy = await startTcpProxy(brokerPort());
    h = await pipeline.identity({ AMQP_URL: viaProxy(proxy) }, { verifications: true });
  });
  afterAll(async () => {
    await pipeline?.stop();
    await proxy?.close();
  });

  const rowsOf = (userId: string) =>
    h.db
      .collection<LinkTokenDocument>(EMAIL_VERIFICATIONS_COLLECTION)
      .find({ userId: new ObjectId(userId) })
      .toArray();

  test('when the broker is down at sign-up, then 201 all the same, and once it is back exactly one verification mail goes out', async () => {
    // Arrange
    proxy.cut();
    await eventually(() => !h.amqp.isConnected(), { what: 'identity to notice the broker is gone' });
    const email = randomEmail();

    // Act: signed up while the broker is away
    const res = await h.call('post', '/users', MASTER).send({ email, password: 'correct-horse' });
    await pause(1_000);

    // Assert: the user exists, the mail waits in the outbox
    expect(res.status).toBe(201);
    expect(pipeline.mailsTo(email)).toEqual([]);
    const [waiting] = await rowsOf(res.body.id);
    expect(waiting!.mail).toMatchObject({ status: 'pending', envelope: { type: 'mail.email-verification', data: { to: email } } });
    expect(await h.relay.backlog()).toBeGreaterThanOrEqual(1);

    // Act: the broker comes back
    proxy.restore();

    // Assert: one mail, marked sent
    const [mail] = await pipeline.waitForMailsTo(email, 1, 20_000);
    await eventually(async () => (await rowsOf(res.body.id))[0]?.mail?.status === 'sent', { what: 'the row to be marked sent' });
    await pause(1_000);
    expect(mail!.subject).toBe('Confirm your e-mail address');
    expect(pipeline.mailsTo(email)).toHaveLength(1);
  });
});
