import { hashSync } from '@node-rs/argon2';
import { randomEmail, uniqueSuffix } from '@restgate/shared/testing';
import bcrypt from 'bcryptjs';
import { ChangeOutbox } from '@restgate/shared/resource';
import { ObjectId } from 'mongodb';
import { MongoUserRepository } from '../src/accounts/user.repository';
import { USER_FILTERS } from '../src/accounts/user.schemas';
import { basic, expectProblem, MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';

/** What the harness configures: every new hash starts with it. */
const CURRENT = /^\$argon2id\$v=19\$m=1024,t=1,p=1\$/;

describe('POST /auth: password hashes of older costs', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  const signIn = (email: string, password: string) => h.call('post', '/auth', MASTER).set('Authorization', basic(email, password));

  /** A user as a version before Argon2id stored it: straight into the collection, with `passwordHash` as given. */
  async function anOlderUser(passwordHash: string): Promise<{ id: string; email: string }> {
    const email = randomEmail('older');
    const now = new Date();
    const { insertedId } = await h.db.collection('users').insertOne({
      email,
      name: email.split('@')[0],
      picture: 'https://gravatar.com/avatar/0?d=identicon',
      role: 'user',
      passwordHash,
      createdAt: now,
      updatedAt: now,
    });
    return { id: insertedId.toHexString(), email };
  }

  const doc = (id: string) => h.db.collection('users').findOne({ _id: new ObjectId(id) });

  test('when a user with a bcrypt hash signs in, then 201, and the stored hash becomes Argon2id at the current costs (the same password still works)', async () => {
    const password = `pw-${uniqueSuffix()}`;
    const user = await anOlderUser(bcrypt.hashSync(password, 4));
    const before = await doc(user.id);

    const res = await signIn(user.email, password);

    expect(res.status).toBe(201);
    expect(res.body.user.id).toBe(user.id);
    const after = await doc(user.id);
    expect(before?.passwordHash).toMatch(/^\$2[aby]\$04\$/);
    expect(after?.passwordHash).toMatch(CURRENT);
    // No credentials epoch moved and the user's view is the same: nothing else was written.
    expect(after).toEqual({ ...before, passwordHash: after?.passwordHash });
    expect((await signIn(user.email, password)).status).toBe(201);
    expect((await doc(user.id))?.passwordHash).toBe(after?.passwordHash);
  });

  test('when a user with an Argon2id hash of older costs signs in, then it is rehashed at the current costs', async () => {
    const password = `pw-${uniqueSuffix()}`;
    const older = hashSync(password, { algorithm: 2, memoryCost: 2048, timeCost: 2, parallelism: 1 });
    const user = await anOlderUser(older);

    const res = await signIn(user.email, password);

    expect(res.status).toBe(201);
    expect((await doc(user.id))?.passwordHash).toMatch(CURRENT);
  });

  test('when the password is wrong, then 401 and the older hash stays', async () => {
    const password = `pw-${uniqueSuffix()}`;
    const hash = bcrypt.hashSync(password, 4);
    const user = await anOlderUser(hash);

    const res = await signIn(user.email, `${password}x`);

    expectProblem(res, 401);
    expect((await doc(user.id))?.passwordHash).toBe(hash);
  });

  test('when a bcrypt user sends a password that starts with their 72-byte one and goes on, then 401 (bcrypt would read only 72 bytes)', async () => {
    const password = 'b'.repeat(72);
    const user = await anOlderUser(bcrypt.hashSync(password, 4));

    const longer = await signIn(user.email, `${password}-and-more`);
    const right = await signIn(user.email, password);

    expectProblem(longer, 401);
    expect(right.status).toBe(201);
  });

  test('when the user signs in with a hash at the current costs, then one check and nothing is written', async () => {
    const user = await h.aUser();
    const before = await doc(user.id);
    const checks = h.hasher.stats().completed;

    const res = await signIn(user.email, user.password);

    expect(res.status).toBe(201);
    expect(h.hasher.stats().completed - checks).toBe(1);
    expect(await doc(user.id)).toEqual(before);
  });

  test('when the password changed since the hash the sign-in checked, then the rehash does not overwrite the new one', async () => {
    const password = `pw-${uniqueSuffix()}`;
    const checked = bcrypt.hashSync(password, 4);
    const user = await anOlderUser(checked);
    // The change lands between the sign-in's check and its rehash.
    const changed = hashSync('the-new-password', { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 });
    await h.db.collection('users').updateOne({ _id: new ObjectId(user.id) }, { $set: { passwordHash: changed } });

    const replaced = await new MongoUserRepository(h.db, {
      cursorSecret: 'rehash-test-cursor-secret',
      filters: USER_FILTERS,
      events: { outbox: new ChangeOutbox(h.db) },
    }).rehashPassword(user.id, checked, await h.hasher.hash(password));

    expect(replaced).toBe(false);
    expect((await doc(user.id))?.passwordHash).toBe(changed);
  });

  test('when a 200-character password is set, then it signs in, and one character less does not', async () => {
    const password = `${'ä'.repeat(100)}${'z'.repeat(99)}!`;
    const user = await h.aUser({ password });

    const right = await signIn(user.email, password);
    const shorter = await signIn(user.email, password.slice(0, 199));

    expect(password).toHaveLength(200);
    expect(right.status).toBe(201);
    expectProblem(shorter, 401);
  });
});

describe('POST /auth: an unknown e-mail costs what a wrong password does', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    // Costs high enough that the check dominates a sign-in's time.
    h = await startIdentity({ ARGON2_MEMORY_KIB: '19456', ARGON2_ITERATIONS: '8' });
  });
  afterAll(() => h.close());

  async function timed(email: string, password: string): Promise<{ ms: number; checks: number; status: number }> {
    const checks = h.hasher.stats().completed;
    const started = performance.now();
    const res = await h.call('post', '/auth', MASTER).set('Authorization', basic(email, password));
    return { ms: performance.now() - started, checks: h.hasher.stats().completed - checks, status: res.status };
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

  test('when the e-mail is unknown, then exactly one check at the current costs: the same count as a wrong password, and about the same time', async () => {
    const user = await h.aUser();
    await timed(user.email, 'warm-up-the-worker');
    const wrong: number[] = [];
    const unknown: number[] = [];

    for (let i = 0; i < 5; i += 1) {
      const w = await timed(user.email, `wrong-${i}`);
      const u = await timed(randomEmail('nobody'), `wrong-${i}`);
      expect([w.status, w.checks, u.status, u.checks]).toEqual([401, 1, 401, 1]);
      wrong.push(w.ms);
      unknown.push(u.ms);
    }

    // A dummy of other costs (bcrypt's, or the defaults') would be several times off; the band is
    // wide for a shared machine.
    const ratio = median(unknown) / median(wrong);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});
