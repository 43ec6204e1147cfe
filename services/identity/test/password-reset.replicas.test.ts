import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { uniqueSuffix } from '@restgate/shared/testing';
import { createDeliveryRepository } from '../../mailer/src/data/delivery.repository';
import { PASSWORD_RESETS_COLLECTION } from '../src/emailed-links/link-token.repository';
import { OutboxRepository } from '../src/outbox/outbox.repository';
import { MASTER, type IdentityHarness } from './support/identity-harness';
import { eventually, mailRowsTo, startMailPipeline, type MailPipeline } from './support/password-resets';

jest.setTimeout(60_000);

/** One at a time: the hashing queue answers 503 past a few passwords at once. */
async function usersOf(h: IdentityHarness, count: number) {
  const users = [];
  for (let i = 0; i < count; i++) users.push(await h.aUser());
  return users;
}

/**
 * Two identity replicas (two outbox relays) and two mailers on one database and one topology:
 * the claims that must have one winner (the relay's lease on an outbox entry, the mailer's
 * take-over of a message) are unique-key inserts, because a conditional update is
 * read-modify-write on FerretDB, where two relays published most entries twice.
 */
describe('password reset mails with two relays and two mailers', () => {
  let pipeline: MailPipeline;
  let first: IdentityHarness;
  let second: IdentityHarness;
  beforeAll(async () => {
    pipeline = await startMailPipeline();
    await pipeline.mail.startMailer();
    first = await pipeline.identity();
    second = await pipeline.identity({ MONGODB_DB: first.config.MONGODB_DB });
  });
  afterAll(() => pipeline?.stop());

  test('when 40 resets are requested through both replicas, then each entry is published once and each mail sent once', async () => {
    const users = await usersOf(first, 40);

    const answers = await Promise.all(
      users.map((user, i) => (i % 2 ? second : first).call('post', '/password-resets', MASTER).type('form').send({ email: user.email })),
    );
    await eventually(() => users.every((user) => pipeline.mailsTo(user.email).length >= 1), { timeoutMs: 40_000, what: '40 mails' });

    expect(answers.map((res) => res.status)).toEqual(users.map(() => 202));
    // A publish is a claim: an entry claimed twice was published twice.
    const rows = (await Promise.all(users.map((user) => mailRowsTo(first, user.email)))).flat();
    expect(rows.map((row) => ({ status: row.mail?.status, attempts: row.mail?.attempts }))).toEqual(users.map(() => ({ status: 'sent', attempts: 1 })));
    expect(users.map((user) => pipeline.mailsTo(user.email).length)).toEqual(users.map(() => 1));
    const deliveries = await pipeline.mail.deliveries.find({}).toArray();
    expect(deliveries).toHaveLength(40);
    expect(deliveries.map((d) => ({ status: d.status, sends: d.sends }))).toEqual(deliveries.map(() => ({ status: 'sent', sends: 1 })));
  });
});

describe('claims raced head to head on the test database', () => {
  let pipeline: MailPipeline;
  let h: IdentityHarness;
  beforeAll(async () => {
    pipeline = await startMailPipeline({ startMailer: false });
    h = await pipeline.identity({ OUTBOX_POLL_MS: '600000' });
    await h.relay.stop();
  });
  const afterAllClose: MongoClient[] = [];
  afterAll(async () => {
    await Promise.all(afterAllClose.map((client) => client.close()));
    await pipeline?.stop();
  });

  test('when 8 relays claim 30 due entries at once, again and again, then every entry is claimed exactly once', async () => {
    const users = await usersOf(h, 30);
    for (const user of users) {
      expect((await h.call('post', '/password-resets', MASTER).type('form').send({ email: user.email })).status).toBe(202);
    }
    const relays = Array.from({ length: 8 }, (_, i) => ({ owner: `relay-${i}`, outbox: new OutboxRepository(h.db, [PASSWORD_RESETS_COLLECTION]) }));

    const claimed: string[] = [];
    for (let round = 0; round < 40; round++) {
      const items = await Promise.all(relays.map((r) => r.outbox.claimNext(r.owner, 600_000)));
      for (const item of items) if (item) claimed.push(item.id);
    }

    expect(claimed).toHaveLength(30);
    expect(new Set(claimed).size).toBe(30);
  });

  test('when 8 mailers take over the same failed deliveries at once, then one of them wins each', async () => {
    // Eight mailers: eight connections to the mailer's database, as eight processes would have.
    const clients = Array.from({ length: 8 }, () => new MongoClient(pipeline.mail.settings.MONGODB_URL));
    afterAllClose.push(...clients);
    const logs = clients.map((client) => createDeliveryRepository(client.db(pipeline.mail.settings.MONGODB_DB)));
    const ids = Array.from({ length: 20 }, () => `msg-${randomUUID()}`);
    const claim = (log: (typeof logs)[number], id: string) => log.claim({ id, type: 'mail.password-reset', requestId: `req-${uniqueSuffix()}`, leaseMs: 600_000 });
    for (const id of ids) {
      const first = await claim(logs[0]!, id);
      if (first.outcome !== 'claimed') throw new Error(`the first claim of ${id} was ${first.outcome}`);
      await logs[0]!.release(id, first.token, 'the SMTP server said no');
    }

    const outcomes = await Promise.all(ids.map((id) => Promise.all(logs.map((log) => claim(log, id)))));

    expect(outcomes.map((perId) => perId.filter((o) => o.outcome === 'claimed').length)).toEqual(ids.map(() => 1));
    const docs = await pipeline.mail.deliveries.find({ _id: { $in: ids } }).toArray();
    expect(docs.map((d) => ({ status: d.status, sends: d.sends }))).toEqual(ids.map(() => ({ status: 'sending', sends: 2 })));
  });
});
