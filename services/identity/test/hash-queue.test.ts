import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ObjectId } from 'mongodb';
import { asPrincipal } from '@restgate/shared/testing';
import { eventually } from '../../mailer/test/support/eventually';
import { basic, expectProblem, MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';

describe('bounded hashing', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    // One worker, slow hashes and no waiting room: a burst is bound to find the queue full.
    h = await startIdentity({ HASH_WORKERS: '1', HASH_QUEUE_MAX: '1', ARGON2_MEMORY_KIB: '19456', ARGON2_ITERATIONS: '64' });
  });
  afterAll(() => h.close());

  test('when more password checks come than the queue holds, then the overflow is a 503 with Retry-After at once, and the rest are answered', async () => {
    const user = await h.aUser();

    const replies = await Promise.all(
      Array.from({ length: 8 }, () => h.call('post', '/auth', MASTER).set('Authorization', basic(user.email, user.password))),
    );

    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    const busy = replies.filter((r) => r.status === 503);
    expect(busy.length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);
    expectProblem(busy[0]!, 503);
    expect(busy[0]!.body.code).toBe('busy');
    expect(busy[0]!.headers['retry-after']).toBe('1');
    // The queue drains: the next check is served.
    expect((await h.call('post', '/auth', MASTER).set('Authorization', basic(user.email, user.password))).status).toBe(201);
  });
});

describe('hashing capacity kept for sign-ins', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    // One worker, slow hashes, four waiting: five checks at most in flight, the default share of them kept for sign-ins.
    h = await startIdentity({ HASH_WORKERS: '1', HASH_QUEUE_MAX: '4', ARGON2_MEMORY_KIB: '19456', ARGON2_ITERATIONS: '64' });
  });
  afterAll(() => h.close());

  test('when other hashing (a flood of sign-ups) fills the queue, then sign-ins still get their checks: no 503 for them, and the flood is bounded', async () => {
    const users = [await h.aUser(), await h.aUser(), await h.aUser()];
    const flood = Array.from({ length: 12 }, (_, i) =>
      h
        .call('post', '/users', MASTER)
        .send({ email: `flood-${i}-${Date.now()}@example.com`, password: 'flood-password-1' })
        .then((r) => r),
    );
    await eventually(() => h.hasher.stats().inFlight > 0, { what: 'the flood to reach the hasher' });

    const signIns = await Promise.all(users.map((u) => h.call('post', '/auth', MASTER).set('Authorization', basic(u.email, u.password))));
    const floodStatuses = (await Promise.all(flood)).map((r) => r.status);

    expect(signIns.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(floodStatuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(floodStatuses.every((s) => s === 201 || s === 503)).toBe(true);
  });
});

describe('a client that goes away', () => {
  let h: IdentityHarness;
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    // One worker and checks slow enough (64 passes over 19 MiB, ~0.3 s, as bcrypt cost 12 was) to close a connection while one waits or runs.
    h = await startIdentity({ HASH_WORKERS: '1', HASH_QUEUE_MAX: '4', ARGON2_MEMORY_KIB: '19456', ARGON2_ITERATIONS: '64' });
    server = http.createServer(h.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await h.close();
  });

  /** A sign-in sent on a connection of its own, which the test closes with `destroy()`. */
  function signInToLeave(email: string, password: string): http.ClientRequest {
    const req = http.request({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path: '/auth',
      headers: { ...asPrincipal(MASTER, 'post', '/auth'), authorization: basic(email, password) },
    });
    req.on('error', () => undefined);
    req.end();
    return req;
  }

  const sessionsOf = (userId: string) => h.db.collection('sessions').countDocuments({ userId: new ObjectId(userId) });
  const settled = () =>
    eventually(() => h.hasher.stats().inFlight === 0 && h.hasher.stats().completed >= 1, { what: 'the pool to settle' });

  test('when the client closes the connection while its check waits in the queue, then that check is never hashed', async () => {
    const user = await h.aUser();
    await settled();
    const before = h.hasher.stats().completed;
    const first = h
      .call('post', '/auth', MASTER)
      .set('Authorization', basic(user.email, user.password))
      .then((r) => r);
    await eventually(() => h.hasher.stats().inFlight === 1, { what: 'the first check to start' });
    const gone = signInToLeave(user.email, 'a-guess-never-checked');
    await eventually(() => h.hasher.stats().queued === 1, { what: 'the second check to wait in the queue' });
    gone.destroy();

    expect((await first).status).toBe(201);
    await eventually(() => h.hasher.stats().inFlight === 0, { what: 'the queue to empty' });
    expect(h.hasher.stats().completed).toBe(before + 1);
  });

  test("when a sign-up's client leaves while its hash waits (a gateway that answered 504), then no user is created: the 504 hides no sign-up", async () => {
    const user = await h.aUser();
    await settled();
    const first = h
      .call('post', '/auth', MASTER)
      .set('Authorization', basic(user.email, user.password))
      .then((r) => r);
    await eventually(() => h.hasher.stats().inFlight === 1, { what: 'a check to hold the worker' });
    const email = `left-${Date.now()}@example.com`;
    const body = JSON.stringify({ email, password: 'a-password-long-enough' });
    const req = http.request({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path: '/users',
      headers: { ...asPrincipal(MASTER, 'post', '/users'), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', () => undefined);
    req.end(body);
    await eventually(() => h.hasher.stats().queued === 1, { what: 'the sign-up hash to wait in the queue' });
    req.destroy();

    expect((await first).status).toBe(201);
    await eventually(() => h.hasher.stats().inFlight === 0, { what: 'the queue to empty' });
    expect(await h.db.collection('users').findOne({ email })).toBeNull();
  });

  test('when the client closes the connection during its check, then the check finishes on its thread and no session is made', async () => {
    const user = await h.aUser();
    await settled();
    const { completed, threadsStarted } = h.hasher.stats();
    const gone = signInToLeave(user.email, user.password);
    await eventually(() => h.hasher.stats().inFlight === 1 && h.hasher.stats().queued === 0, { what: 'the check to start' });
    gone.destroy();

    await eventually(() => h.hasher.stats().inFlight === 0, { what: 'the check to end' });
    expect(h.hasher.stats()).toMatchObject({ completed: completed + 1, threadsStarted });
    expect(await sessionsOf(user.id)).toBe(0);
    // The same thread serves the next check.
    expect((await h.call('post', '/auth', MASTER).set('Authorization', basic(user.email, user.password))).status).toBe(201);
    expect(h.hasher.stats().threadsStarted).toBe(threadsStarted);
    expect(await sessionsOf(user.id)).toBe(1);
  });
});

describe('a password change while sign-ins flood the hashing', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    // One worker, so that every check waits its turn; hashes cheap enough for a bounded flood.
    h = await startIdentity({ HASH_WORKERS: '1', HASH_QUEUE_MAX: '16', ARGON2_MEMORY_KIB: '8192', ARGON2_ITERATIONS: '8' });
  });
  afterAll(() => h.close());

  test('when six sign-in loops (for e-mails that do not exist) keep the worker busy, then a password change is served while they run, not after them', async () => {
    const user = await h.aUser();
    const CAP = 300;
    let signIns = 0;
    let stop = false;
    const loop = async (n: number) => {
      while (!stop && signIns < CAP) {
        await h.call('post', '/auth', MASTER).set('Authorization', basic(`nobody-${n}-${signIns}@example.com`, 'a-wrong-password'));
        signIns += 1;
      }
    };
    const loops = Array.from({ length: 6 }, (_, n) => loop(n));
    await eventually(() => h.hasher.stats().queued >= 3, { what: 'sign-ins waiting for the worker' });

    const change = await h
      .call('put', `/users/${user.id}/password`, user.principal)
      .set('Authorization', basic(user.email, user.password))
      .send({ password: 'a-new-password-1' });
    const signInsMeanwhile = signIns;
    stop = true;
    await Promise.all(loops);

    expect(change.status).toBe(200);
    // Served in turn with the sign-ins (a priority for them would have held it until the loops ended at CAP).
    expect(signInsMeanwhile).toBeLessThan(CAP / 2);
  }, 120_000);
});
