import { createLogger } from '@restgate/shared';
import { createAmqp, type ReadyHandler } from '@restgate/shared/messaging';
import { randomEmail, uniqueSuffix } from '@restgate/shared/testing';
import { ObjectId } from 'mongodb';
import request from 'supertest';
import { EMAIL_VERIFICATIONS_COLLECTION, type LinkTokenDocument } from '../src/emailed-links/link-token.repository';
import { MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';
import {
  aPasswordReset,
  brokerPort,
  eventually,
  pause,
  resetsOf,
  startMailPipeline,
  startTcpProxy,
  viaProxy,
  type MailPipeline,
  type TcpProxy,
} from './support/password-resets';

jest.setTimeout(40_000);

type Channel = Parameters<ReadyHandler>[0];

/**
 * The outbox when RabbitMQ is away from identity: the broker is reached through a TCP proxy the
 * test cuts (the other test files keep using the broker).
 */
describe('password reset and sign-up while the broker is unreachable', () => {
  let pipeline: MailPipeline;
  let proxy: TcpProxy;
  let h: IdentityHarness;
  beforeAll(async () => {
    pipeline = await startMailPipeline();
    proxy = await startTcpProxy(brokerPort());
    h = await pipeline.identity({ AMQP_URL: viaProxy(proxy) });
  });
  afterAll(async () => {
    await pipeline?.stop();
    await proxy?.close();
  });

  test('when the broker is down as the request arrives, then 202 all the same, /ready stays 200, and once it is back exactly one mail goes out', async () => {
    // Arrange
    const user = await h.aUser();
    proxy.cut();
    await eventually(() => !h.amqp.isConnected(), { what: 'identity to notice the broker is gone' });

    // Act: asked while the broker is away
    const res = await h.call('post', '/password-resets', MASTER).send({ email: user.email });
    const ready = await request(h.app).get('/ready');
    await pause(1_000);

    // Assert: accepted and kept, nothing sent yet
    expect(res.status).toBe(202);
    expect(ready.status).toBe(200);
    expect(pipeline.mailsTo(user.email)).toEqual([]);
    const [waiting] = await resetsOf(h, user.id);
    expect(waiting!.mail).toMatchObject({ status: 'pending' });
    expect(await h.relay.backlog()).toBeGreaterThanOrEqual(1);

    // Act: the broker comes back
    proxy.restore();

    // Assert: one mail, marked sent
    await pipeline.waitForMailsTo(user.email, 1, 20_000);
    await eventually(async () => (await resetsOf(h, user.id))[0]?.mail?.status === 'sent', { what: 'the row to be marked sent' });
    await pause(1_000);
    expect(pipeline.mailsTo(user.email)).toHaveLength(1);
  });

  const verificationsOf = (userId: string) =>
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
    const [waiting] = await verificationsOf(res.body.id);
    expect(waiting!.mail).toMatchObject({ status: 'pending', envelope: { type: 'mail.email-verification', data: { to: email } } });
    expect(await h.relay.backlog()).toBeGreaterThanOrEqual(1);

    // Act: the broker comes back
    proxy.restore();

    // Assert: one mail, marked sent
    const [mail] = await pipeline.waitForMailsTo(email, 1, 20_000);
    await eventually(async () => (await verificationsOf(res.body.id))[0]?.mail?.status === 'sent', { what: 'the row to be marked sent' });
    await pause(1_000);
    expect(mail!.subject).toBe('Confirm your e-mail address');
    expect(pipeline.mailsTo(email)).toHaveLength(1);
  });
});

describe('the outbox relay', () => {
  let pipeline: MailPipeline;
  beforeAll(async () => {
    pipeline = await startMailPipeline();
  });
  afterAll(() => pipeline?.stop());

  test('when a reset is asked, then the relay is woken at once: the mail does not wait for the next poll', async () => {
    const h = await pipeline.identity({ OUTBOX_POLL_MS: '600000' });
    const user = await h.aUser();
    // Past the relay's first pass after connecting; from now on only a wake-up makes it look.
    await pause(300);

    await h.call('post', '/password-resets', MASTER).send({ email: user.email });

    await pipeline.waitForMailsTo(user.email, 1, 5_000);
  });

  test('when two identity replicas share a database, then each request still makes exactly one mail', async () => {
    const db = `test_identity_shared_${uniqueSuffix()}`;
    const a = await pipeline.identity({ MONGODB_DB: db });
    const b = await pipeline.identity({ MONGODB_DB: db });
    const users = await Promise.all(Array.from({ length: 6 }, () => a.aUser()));

    for (const [i, user] of users.entries()) {
      const replica = i % 2 === 0 ? a : b;
      expect((await replica.call('post', '/password-resets', MASTER).send({ email: user.email })).status).toBe(202);
    }

    for (const user of users) await pipeline.waitForMailsTo(user.email);
    await pause(1_000);
    for (const user of users) expect(pipeline.mailsTo(user.email)).toHaveLength(1);
  });

  test('when the publish is refused (its queue was deleted), then the row stays pending with the reason, and goes out once the queue is back', async () => {
    // Arrange: a channel of our own on the broker
    const logger = createLogger({ name: 'test', level: 'silent' });
    const admin = createAmqp({ url: pipeline.mail.settings.AMQP_URL, logger, name: 'test-admin' });
    let channel: Channel | undefined;
    admin.onReady(async (ch) => {
      channel = ch;
    });
    admin.start();
    await admin.waitUntilConnected(10_000);
    const h = await pipeline.identity();
    const topology = pipeline.mail.topology;
    const user = await h.aUser();

    try {
      // Act: the mail queue disappears, then a reset is asked
      await channel!.deleteQueue(topology.queue);
      await h.call('post', '/password-resets', MASTER).send({ email: user.email });

      // Assert: refused as unroutable, kept, retried later
      const [failed] = await eventually(
        async () => {
          const rows = await resetsOf(h, user.id);
          return rows[0]?.mail?.lastError ? rows : undefined;
        },
        { what: 'a failed attempt to be recorded' },
      );
      expect(failed!.mail).toMatchObject({ status: 'pending', attempts: 1, lastError: expect.stringContaining('no queue is bound') });
      expect(failed!.mail!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());

      // Act: the queue is back
      await pipeline.mail.declareTopology();

      // Assert: the retry sends it, once
      await pipeline.waitForMailsTo(user.email, 1, 20_000);
      await eventually(async () => (await resetsOf(h, user.id))[0]?.mail?.status === 'sent', { what: 'the row to be marked sent' });
    } finally {
      await admin.stop();
    }
  });

  test('when a reset expires before its mail went out, then it is never sent and the relay removes it', async () => {
    // Arrange: written while no relay runs
    const h = await startIdentity(
      { AMQP_URL: pipeline.mail.settings.AMQP_URL, TOPOLOGY_PREFIX: pipeline.mail.settings.TOPOLOGY_PREFIX },
      { verificationMails: false },
    );
    const user = await h.aUser();
    const expired = await aPasswordReset(h, user, { expiresAt: new Date(Date.now() - 1_000) });
    const live = await aPasswordReset(h, user, { beside: true });

    try {
      // Act
      h.start();

      // Assert: the live one goes out; the expired one is gone without a mail
      await pipeline.waitForMailsTo(user.email, 1);
      await eventually(async () => (await resetsOf(h, user.id)).length === 1, { what: 'the expired reset to be removed' });
      const rows = await resetsOf(h, user.id);
      expect(rows.map((r) => r._id.toHexString())).toEqual([live.id]);
      expect(rows.map((r) => r._id.toHexString())).not.toContain(expired.id);
      await pause(500);
      expect(pipeline.mailsTo(user.email)).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
