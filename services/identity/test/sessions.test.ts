import { createLogger, type Principal } from '@restgate/shared';
import { createRedis, revocationKey, type RedisHandle } from '@restgate/shared/limits';
import jwt, { type JwtPayload } from 'jsonwebtoken';
import { ObjectId } from 'mongodb';
import { MongoSessionRepository } from '../src/accounts/session.repository';
import { hashRefreshToken } from '../src/accounts/sessions';
import {
  basic,
  expectProblem,
  MASTER,
  startIdentity,
  TEST_JWT_SECRET,
  type IdentityHarness,
  type TestUser,
} from './support/identity-harness';

describe('sessions: sign-in, refresh, logout, listing', () => {
  let h: IdentityHarness;
  let redis: RedisHandle;
  beforeAll(async () => {
    h = await startIdentity();
    redis = createRedis(h.config.REDIS_URL, createLogger({ name: 'sessions-test', level: 'silent' }));
    await redis.whenReady(5_000);
  });
  afterAll(async () => {
    await redis.close();
    await h.close();
  });

  const signIn = (user: TestUser, userAgent = 'sessions-test/1.0') =>
    h.call('post', '/auth', MASTER).set('Authorization', basic(user.email, user.password)).set('User-Agent', userAgent);
  const refresh = (refreshToken: unknown) => h.call('post', '/auth/refresh').send({ refreshToken });
  const claimsOf = (token: string) => jwt.verify(token, TEST_JWT_SECRET, { algorithms: ['HS256'] }) as JwtPayload;
  const asSession = (user: TestUser, token: string): Principal => ({
    kind: 'user',
    id: user.id,
    role: user.role,
    sid: claimsOf(token).sid as string,
  });
  /** Entries recorded for the gateways (members of the sorted set). */
  const revoked = async () => redis.client.zrange(revocationKey(h.config.REDIS_KEY_PREFIX), 0, -1);
  const sessionDoc = (sid: string) => h.db.collection('sessions').findOne({ _id: new ObjectId(sid) });

  test('when a user signs in, then 201 with an access token carrying a new session, a refresh token stored only as a hash, expiresIn and the user', async () => {
    const user = await h.aUser();

    const res = await signIn(user);

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      token: expect.any(String),
      refreshToken: expect.any(String),
      expiresIn: 900,
      user: expect.objectContaining({ id: user.id }),
    });
    const claims = claimsOf(res.body.token);
    expect(claims).toMatchObject({ sub: user.id, sid: expect.stringMatching(/^[0-9a-f]{24}$/), jti: expect.any(String) });
    expect(claims.exp! - claims.iat!).toBe(900);
    // 256 bits, base64url: 43 characters.
    expect(res.body.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await sessionDoc(claims.sid)).toMatchObject({ userAgent: 'sessions-test/1.0' });
    const stored = await h.db
      .collection('refresh_tokens')
      .find({ sessionId: new ObjectId(claims.sid as string) })
      .toArray();
    expect(stored.map((doc) => doc._id)).toEqual([hashRefreshToken(res.body.refreshToken)]);
    expect(JSON.stringify(stored)).not.toContain(res.body.refreshToken);
  });

  test('when a refresh token is used, then 201 with new tokens for the same session, and the old one no longer works', async () => {
    const user = await h.aUser();
    const first = (await signIn(user)).body;

    const second = await refresh(first.refreshToken);

    expect(second.status).toBe(201);
    expect(second.body).toEqual({
      token: expect.any(String),
      refreshToken: expect.any(String),
      expiresIn: 900,
      user: expect.objectContaining({ id: user.id }),
    });
    expect(second.body.refreshToken).not.toBe(first.refreshToken);
    expect(claimsOf(second.body.token).sid).toBe(claimsOf(first.token).sid);
    expect(claimsOf(second.body.token).jti).not.toBe(claimsOf(first.token).jti);
    // The new one works in turn.
    const third = await refresh(second.body.refreshToken);
    expect(third.status).toBe(201);
  });

  /** Moves a refresh token's use `seconds` into the past: its retry grace (REFRESH_REUSE_GRACE_SECONDS) is over. */
  const ageUse = async (refreshToken: string, seconds: number) => {
    const past = new Date(Date.now() - seconds * 1000);
    await h.db
      .collection('refresh_token_uses')
      .updateOne({ _id: hashRefreshToken(refreshToken) as never }, { $set: { usedAt: past, successorUntil: past } });
  };

  test('when a used refresh token is presented again within the grace, then 201 with the same next refresh token and a new access token, and the session goes on', async () => {
    const user = await h.aUser();
    const first = (await signIn(user)).body;
    const sid = claimsOf(first.token).sid as string;
    const second = (await refresh(first.refreshToken)).body;

    const retry = await refresh(first.refreshToken);

    expect(retry.status).toBe(201);
    expect(retry.body.refreshToken).toBe(second.refreshToken);
    expect(claimsOf(retry.body.token).sid).toBe(sid);
    expect(claimsOf(retry.body.token).jti).not.toBe(claimsOf(second.token).jti);
    expect(await sessionDoc(sid)).not.toBeNull();
    expect(await revoked()).not.toContain(`s:${sid}`);
    // The successor is kept sealed: the stored use holds no copy of it in the clear.
    const use = await h.db.collection('refresh_token_uses').findOne({ _id: hashRefreshToken(first.refreshToken) as never });
    expect(JSON.stringify(use)).not.toContain(second.refreshToken);
    expect(use?.successor).toEqual(expect.any(String));
    // The successor still works, once.
    expect((await refresh(second.refreshToken)).status).toBe(201);
  });

  test('when a used refresh token is presented again after the grace, then 401 and the whole session ends: its newest refresh token is dead and the gateways are told', async () => {
    const user = await h.aUser();
    const first = (await signIn(user)).body;
    const sid = claimsOf(first.token).sid as string;
    const second = (await refresh(first.refreshToken)).body;
    await ageUse(first.refreshToken, h.config.REFRESH_REUSE_GRACE_SECONDS + 1);

    const reuse = await refresh(first.refreshToken);

    expectProblem(reuse, 401);
    expect(reuse.body.code).toBe('invalid_refresh_token');
    expect(await sessionDoc(sid)).toBeNull();
    expectProblem(await refresh(second.refreshToken), 401);
    expect(await revoked()).toContain(`s:${sid}`);
  });

  test('when periodic clean-up runs after the grace, then the sealed successor is gone from the stored use', async () => {
    const user = await h.aUser();
    const first = (await signIn(user)).body;
    await refresh(first.refreshToken);
    await ageUse(first.refreshToken, h.config.REFRESH_REUSE_GRACE_SECONDS + 1);

    await new MongoSessionRepository(h.db).deleteExpired(new Date());

    const use = await h.db.collection('refresh_token_uses').findOne({ _id: hashRefreshToken(first.refreshToken) as never });
    expect(use).not.toBeNull();
    expect(use).not.toHaveProperty('successor');
  });

  test('when 12 refreshes race with one refresh token, then all succeed with the same next refresh token, and the session rotated once', async () => {
    const user = await h.aUser();
    const first = (await signIn(user)).body;
    const sid = claimsOf(first.token).sid as string;

    const replies = await Promise.all(Array.from({ length: 12 }, () => refresh(first.refreshToken)));

    expect(replies.map((r) => r.status)).toEqual(Array(12).fill(201));
    expect(new Set(replies.map((r) => r.body.refreshToken)).size).toBe(1);
    for (const reply of replies) expect(claimsOf(reply.body.token).sid).toBe(sid);
    const live = await h.db.collection('refresh_tokens').countDocuments({ sessionId: new ObjectId(sid) });
    expect(live).toBe(2); // the first (used) one and its single successor
  });

  test('when the refresh token has expired, then 401 and no new tokens', async () => {
    const user = await h.aUser();
    const first = (await signIn(user)).body;
    await h.db
      .collection('refresh_tokens')
      .updateOne({ _id: hashRefreshToken(first.refreshToken) as never }, { $set: { expiresAt: new Date(Date.now() - 1000) } });

    expectProblem(await refresh(first.refreshToken), 401);
  });

  test("when sessions have expired, then identity's periodic clean-up removes them with their refresh tokens, and live ones stay", async () => {
    const user = await h.aUser();
    const expired = (await signIn(user)).body;
    const live = (await signIn(user)).body;
    const expiredSid = new ObjectId(claimsOf(expired.token).sid as string);
    const past = new Date(Date.now() - 1000);
    await h.db.collection('sessions').updateOne({ _id: expiredSid }, { $set: { expiresAt: past } });
    await h.db
      .collection('refresh_tokens')
      .updateOne({ _id: hashRefreshToken(expired.refreshToken) as never }, { $set: { expiresAt: past } });

    const removed = await new MongoSessionRepository(h.db).deleteExpired(new Date());

    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await sessionDoc(expiredSid.toHexString())).toBeNull();
    expect(await h.db.collection('refresh_tokens').findOne({ _id: hashRefreshToken(expired.refreshToken) as never })).toBeNull();
    expect(await sessionDoc(claimsOf(live.token).sid as string)).not.toBeNull();
    expect(await h.db.collection('refresh_tokens').findOne({ _id: hashRefreshToken(live.refreshToken) as never })).not.toBeNull();
  });

  test('when the refresh token is unknown, missing or not a string, then 401 or 400', async () => {
    expectProblem(await refresh('x'.repeat(43)), 401);
    expectProblem(await h.call('post', '/auth/refresh').send({}), 400, 'refreshToken');
    expectProblem(await h.call('post', '/auth/refresh').send({ refreshToken: { $ne: null } }), 400, 'refreshToken');
  });

  test('the access token lives JWT_TTL_SECONDS and the refresh token REFRESH_TOKEN_TTL_SECONDS', async () => {
    const user = await h.aUser();
    const before = Date.now();
    const first = (await signIn(user)).body;

    const claims = claimsOf(first.token);
    expect(claims.exp! - claims.iat!).toBe(h.config.JWT_TTL_SECONDS);
    const stored = await h.db.collection('refresh_tokens').findOne({ _id: hashRefreshToken(first.refreshToken) as never });
    const lifetime = (stored!.expiresAt as Date).getTime() - before;
    expect(lifetime).toBeGreaterThanOrEqual(h.config.REFRESH_TOKEN_TTL_SECONDS * 1000 - 1000);
    expect(lifetime).toBeLessThanOrEqual(h.config.REFRESH_TOKEN_TTL_SECONDS * 1000 + 60_000);
  });

  test('when a user logs out, then 204, the session and its refresh token are gone, and the gateways are told', async () => {
    const user = await h.aUser();
    const first = (await signIn(user)).body;
    const principal = asSession(user, first.token);

    const res = await h.call('delete', '/auth/session', principal);

    expect(res.status).toBe(204);
    expect(await sessionDoc(principal.kind === 'user' ? principal.sid! : '')).toBeNull();
    expectProblem(await refresh(first.refreshToken), 401);
    expect(await revoked()).toContain(`s:${claimsOf(first.token).sid}`);
  });

  test('when logout comes without a user token, then 401; with the master key, 403', async () => {
    expectProblem(await h.call('delete', '/auth/session'), 401);
    expectProblem(await h.call('delete', '/auth/session', MASTER), 403);
  });

  test('GET /users/:id/sessions lists live sessions newest first for the user and for an admin, and 403 for another user', async () => {
    const user = await h.aUser();
    const other = await h.aUser();
    const admin = await h.aUser({ role: 'admin' });
    const a = (await signIn(user, 'agent-a')).body;
    const b = (await signIn(user, 'agent-b')).body;

    const own = await h.call('get', '/users/me/sessions', asSession(user, b.token));
    const byAdmin = await h.call('get', `/users/${user.id}/sessions?limit=1`, admin.principal);
    const byOther = await h.call('get', `/users/${user.id}/sessions`, other.principal);

    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      count: 2,
      rows: [
        { id: claimsOf(b.token).sid, createdAt: expect.any(String), lastUsedAt: expect.any(String), userAgent: 'agent-b' },
        { id: claimsOf(a.token).sid, createdAt: expect.any(String), lastUsedAt: expect.any(String), userAgent: 'agent-a' },
      ],
    });
    expect(own.headers['x-total-count']).toBe('2');
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.rows).toHaveLength(1);
    expect(byAdmin.headers.link).toContain('rel="next"');
    expectProblem(byOther, 403);
  });

  test('DELETE /users/:id/sessions ends every session of the user: 204, none listed, every refresh token dead, each recorded', async () => {
    const user = await h.aUser();
    const a = (await signIn(user)).body;
    const b = (await signIn(user)).body;

    const res = await h.call('delete', `/users/${user.id}/sessions`, user.principal);

    expect(res.status).toBe(204);
    expect((await h.call('get', '/users/me/sessions', user.principal)).body).toEqual({ count: 0, rows: [] });
    expectProblem(await refresh(a.refreshToken), 401);
    expectProblem(await refresh(b.refreshToken), 401);
    expect(await revoked()).toEqual(expect.arrayContaining([`s:${claimsOf(a.token).sid}`, `s:${claimsOf(b.token).sid}`]));
  });

  test('a password change ends every other session and the reset tokens, and keeps the session whose token came with it', async () => {
    const user = await h.aUser();
    const keep = (await signIn(user)).body;
    const other = (await signIn(user)).body;
    await h.db.collection('password_resets').insertOne({
      userId: new ObjectId(user.id),
      tokenHash: 'f'.repeat(64),
      expiresAt: new Date(Date.now() + 60_000),
      createdAt: new Date(),
      mail: null,
    });

    const res = await h
      .call('put', '/users/me/password', asSession(user, keep.token))
      .set('Authorization', basic(user.email, user.password))
      .send({ password: 'a-brand-new-password' });

    expect(res.status).toBe(200);
    expect(await sessionDoc(claimsOf(keep.token).sid)).not.toBeNull();
    expect(await sessionDoc(claimsOf(other.token).sid)).toBeNull();
    expect(await revoked()).toContain(`s:${claimsOf(other.token).sid}`);
    expect(await revoked()).not.toContain(`s:${claimsOf(keep.token).sid}`);
    expect(await h.db.collection('password_resets').countDocuments({ userId: new ObjectId(user.id) })).toBe(0);
    expect((await refresh(keep.refreshToken)).status).toBe(201);
  });

  test('a password change records a user-wide revocation of older credentials that spares the kept session, and moves that session to the new epoch', async () => {
    const user = await h.aUser();
    const keep = (await signIn(user)).body;

    const res = await h
      .call('put', '/users/me/password', asSession(user, keep.token))
      .set('Authorization', basic(user.email, user.password))
      .send({ password: 'a-brand-new-password' });

    expect(res.status).toBe(200);
    const epoch = ((await h.userDoc(user.id))?.credentialsChangedAt as Date).getTime();
    expect(await revoked()).toContain(`u:${user.id}:${epoch}:${claimsOf(keep.token).sid}`);
    expect(await sessionDoc(claimsOf(keep.token).sid)).toMatchObject({ credentialsEpoch: epoch });
    const next = await refresh(keep.refreshToken);
    expect(next.status).toBe(201);
    expect(claimsOf(next.body.token).cep).toBe(epoch);
    expect(claimsOf((await signIn({ ...user, password: 'a-brand-new-password' })).body.token).cep).toBe(epoch);
  });

  test('when a session was opened with an older password than the user now has (a sign-in that raced a change), then its refresh is refused, it ends, and it is not listed', async () => {
    const user = await h.aUser();
    const raced = (await signIn(user)).body;
    // What a sign-in that checked the old password just before the change leaves behind.
    await h.db.collection('users').updateOne({ _id: new ObjectId(user.id) }, { $set: { credentialsChangedAt: new Date() } });

    const res = await refresh(raced.refreshToken);

    expectProblem(res, 401);
    expect(res.body.code).toBe('invalid_refresh_token');
    expect(await sessionDoc(claimsOf(raced.token).sid)).toBeNull();
    expect(await revoked()).toContain(`s:${claimsOf(raced.token).sid}`);
    expect((await h.call('get', '/users/me/sessions', user.principal)).body).toEqual({ count: 0, rows: [] });
  });

  test('deleting a user ends their sessions and records a user-wide revocation', async () => {
    const admin = await h.aUser({ role: 'admin' });
    const user = await h.aUser();
    const a = (await signIn(user)).body;

    expect((await h.call('delete', `/users/${user.id}`, admin.principal)).status).toBe(204);

    expectProblem(await refresh(a.refreshToken), 401);
    const entries = await revoked();
    expect(entries).toContain(`s:${claimsOf(a.token).sid}`);
    expect(entries.some((entry) => entry.startsWith(`u:${user.id}:`))).toBe(true);
  });

  test('the recorded entries expire with the longest access token: the set has a TTL no longer than JWT_TTL_SECONDS (+1 s)', async () => {
    const user = await h.aUser();
    const a = (await signIn(user)).body;
    await h.call('delete', '/auth/session', asSession(user, a.token));

    const ttl = await redis.client.pttl(revocationKey(h.config.REDIS_KEY_PREFIX));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(h.config.JWT_TTL_SECONDS * 1000 + 1000);
    const score = Number(await redis.client.zscore(revocationKey(h.config.REDIS_KEY_PREFIX), `s:${claimsOf(a.token).sid}`));
    expect(score - Date.now()).toBeLessThanOrEqual(h.config.JWT_TTL_SECONDS * 1000);
  });
});
