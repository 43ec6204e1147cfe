/**
 * GET /realtime through the stack: change events of articles and users, as each reader's rules
 * allow; resume with Last-Event-ID on another gateway replica; tickets; revocation; limits.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { aSignedInUser, aToken, anArticle } from '../support/actors';
import { openStream, type OpenedStream } from '../support/event-stream';
import { client, type Client } from '../support/http';
import { startTestStack, type ExtraGateway, type TestStack } from '../support/stack';

let stack: TestStack;
let api: Client;
const opened: OpenedStream[] = [];

beforeAll(async () => {
  stack = await startTestStack();
  api = client(stack.url);
}, 120_000);

afterEach(() => {
  for (const stream of opened.splice(0)) stream.close();
});

afterAll(async () => {
  await stack?.stop();
});

function stream(query: Record<string, string>, token?: string, base = stack.url, headers: Record<string, string> = {}): OpenedStream {
  const opened_ = openStream(base, { query, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
  opened.push(opened_);
  return opened_;
}

const connected = (s: OpenedStream) => s.waitFor((frames) => frames.some((f) => f.type === 'connected'));

async function createArticle(token: string, body = anArticle()) {
  const res = await api.post('/articles', { bearer: token, form: body });
  expect(res.status).toBe(201);
  return res.body as { id: string; title: string };
}

describe('GET /realtime: change events', () => {
  test('an anonymous reader of articles gets created, updated and deleted frames with the record as it may see it', async () => {
    const author = await aSignedInUser(api, stack);
    const reader = stream({ topics: 'articles' });
    await connected(reader);
    const article = await createArticle(author.token);
    expect((await api.request('PATCH', `/articles/${article.id}`, { bearer: author.token, form: { title: 'Renamed' } })).status).toBe(200);
    expect((await api.request('DELETE', `/articles/${article.id}`, { bearer: author.token })).status).toBe(204);

    await reader.waitFor(() => reader.changes('articles').filter((f) => f.data.record.id === article.id).length === 3);
    const mine = reader.changes('articles').filter((f) => f.data.record.id === article.id);
    expect(mine.map((f) => f.type)).toEqual(['articles.created', 'articles.updated', 'articles.deleted']);
    expect(mine[0]!.data.record).toMatchObject({ id: article.id, title: article.title, user: { id: author.id } });
    // The view, not the stored record: no version, no owner id field, nothing the API never shows.
    expect(mine[0]!.data.record).not.toHaveProperty('version');
    expect(mine[0]!.data.record).not.toHaveProperty('userId');
    expect(mine[1]!.data).toMatchObject({ changed: ['title'], record: { title: 'Renamed' } });
    expect(mine.every((f) => typeof f.data.requestId === 'string' && f.lastEventId.startsWith('articles:'))).toBe(true);
    expect(new Set(mine.map((f) => f.data.id)).size).toBe(3);
  });

  test("users: a user sees only their own record's events, an admin everyone's, and a delete only those who could read it", async () => {
    const admin = await aSignedInUser(api, stack, { role: 'admin' });
    const alice = await aSignedInUser(api, stack);
    const bob = await aSignedInUser(api, stack);
    const aliceStream = stream({ topics: 'users' }, alice.token);
    const adminStream = stream({ topics: 'users' }, admin.token);
    await Promise.all([connected(aliceStream), connected(adminStream)]);

    expect((await api.request('PATCH', '/users/me', { bearer: bob.token, form: { name: 'Bob B' } })).status).toBe(200);
    expect((await api.request('PATCH', '/users/me', { bearer: alice.token, form: { name: 'Alice A' } })).status).toBe(200);
    expect((await api.request('DELETE', `/users/${bob.id}`, { bearer: admin.token })).status).toBe(204);

    await adminStream.waitFor(() => adminStream.changes('users').some((f) => f.type === 'users.deleted' && f.data.record.id === bob.id));
    await aliceStream.waitFor(() => aliceStream.changes('users').some((f) => f.data.record.id === alice.id));
    await sleep(300);
    expect(aliceStream.changes('users').map((f) => f.data.record.id)).toEqual([alice.id]);
    expect(aliceStream.changes('users')[0]!.data.record).toMatchObject({ name: 'Alice A' });
    const seenByAdmin = adminStream.changes('users').map((f) => [f.type, f.data.record.id]);
    expect(seenByAdmin).toEqual(
      expect.arrayContaining([
        ['users.updated', bob.id],
        ['users.updated', alice.id],
        ['users.deleted', bob.id],
      ]),
    );
    // Nothing of the credentials, to anyone.
    expect(JSON.stringify(adminStream.frames)).not.toMatch(/password|credentials/i);
  });

  test('a stream resumed with Last-Event-ID on another gateway replica gets exactly the events it missed', async () => {
    const author = await aSignedInUser(api, stack);
    const first = stream({ topics: 'articles' });
    await connected(first);
    const seen = await createArticle(author.token);
    await first.waitFor(() => first.changes().some((f) => f.data.record.id === seen.id));
    const resumeFrom = first.lastEventId();
    first.close();

    const missed = [await createArticle(author.token), await createArticle(author.token), await createArticle(author.token)];
    let replica: ExtraGateway | undefined;
    try {
      replica = await stack.startGateway();
      const resumed = stream({ topics: 'articles' }, undefined, replica.url, { 'last-event-id': resumeFrom });
      await resumed.waitFor(() => missed.every((a) => resumed.changes().some((f) => f.data.record.id === a.id)));
      await sleep(300);
      expect(resumed.changes().map((f) => f.data.record.id)).toEqual(missed.map((a) => a.id));
      expect(resumed.frames.some((f) => f.type === 'reset')).toBe(false);
      resumed.close();
    } finally {
      await replica?.stop();
    }
  });

  test('a malformed position gets event: reset (refetch) instead of a silent gap', async () => {
    const garbled = stream({ topics: 'articles', lastEventId: 'not a position' });
    await garbled.waitFor((frames) => frames.some((f) => f.type === 'reset'));
    // The window's own test (gateway/test/realtime-window.test.ts) trims one and resumes from before it.
  });
});

describe('GET /realtime: credentials, tickets and sessions', () => {
  test('a ticket opens one stream, once; it is refused a second time', async () => {
    const user = await aSignedInUser(api, stack);
    const issued = await api.post('/realtime/tickets', { bearer: user.token });
    expect(issued.status).toBe(201);
    expect(issued.body).toEqual({ ticket: expect.any(String), expiresIn: 30 });
    const viaTicket = stream({ topics: 'users/me', ticket: issued.body.ticket });
    await connected(viaTicket);
    const again = await fetch(new URL(`/realtime?topics=users/me&ticket=${issued.body.ticket}`, stack.url));
    expect(again.status).toBe(401);
    await again.body?.cancel();
    // The ticket's stream is the user's: their own changes arrive.
    expect((await api.request('PATCH', '/users/me', { bearer: user.token, form: { name: 'Via Ticket' } })).status).toBe(200);
    await viaTicket.waitFor(() => viaTicket.changes('users').some((f) => f.data.record.name === 'Via Ticket'));
  });

  test('a logout closes the streams of its session within a second, with event: revoked', async () => {
    const user = await aSignedInUser(api, stack);
    const mine = stream({ topics: 'users/me' }, user.token);
    await connected(mine);
    const loggedOutAt = Date.now();
    expect((await api.request('DELETE', '/auth/session', { bearer: user.token })).status).toBe(204);
    await mine.waitFor((frames) => frames.some((f) => f.type === 'revoked'), 5_000);
    expect(mine.frames.find((f) => f.type === 'revoked')!.at - loggedOutAt).toBeLessThan(1_000);
  });

  test('a stream ends with event: expired when the token it was opened with expires', async () => {
    const user = await aSignedInUser(api, stack);
    const nearlyExpired = aToken(stack, user.id, { exp: Math.floor(Date.now() / 1000) + 2 });
    const mine = stream({ topics: 'users/me' }, nearlyExpired);
    await connected(mine);
    await mine.waitFor((frames) => frames.some((f) => f.type === 'expired'), 5_000);
    // Its reconnect with the same token is refused: the client gets a fresh one and resumes.
    await sleep(2_500);
    expect(mine.frames.filter((f) => f.type === 'connected')).toHaveLength(1);
  });

  test('PATCH /realtime/:id changes the topics of an open stream', async () => {
    const user = await aSignedInUser(api, stack);
    const mine = stream({ topics: 'users/me' }, user.token);
    await connected(mine);
    const changed = await api.request('PATCH', `/realtime/${mine.connectionId()}`, { bearer: user.token, form: { topics: 'articles' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ connectionId: mine.connectionId(), topics: ['articles'] });
    const article = await createArticle(user.token);
    await mine.waitFor(() => mine.changes('articles').some((f) => f.data.record.id === article.id));
    // Another user cannot touch it.
    const other = await aSignedInUser(api, stack);
    expect(
      (await api.request('PATCH', `/realtime/${mine.connectionId()}`, { bearer: other.token, form: { topics: 'users/me' } })).status,
    ).toBe(404);
  });
});

describe('GET /realtime: bad input and limits', () => {
  test.each([
    ['no topics', ''],
    ['an unknown resource', 'nope'],
    ['a malformed record id', 'articles/xyz'],
    ['more than 50 topics', Array.from({ length: 51 }, (_, i) => `articles/${i.toString(16).padStart(24, '0')}`).join(',')],
  ])('%s: 400 naming the topics parameter', async (_name, topics) => {
    const res = await api.get('/realtime', { query: { topics } });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.param ?? res.body.param).toBe('topics');
  });

  test('users/me without a user token: 401', async () => {
    expect((await api.get('/realtime', { query: { topics: 'users/me' } })).status).toBe(401);
  });

  test('a sixth stream of one user: 429, and a place is free again once one closes', async () => {
    const user = await aSignedInUser(api, stack);
    const five = Array.from({ length: 5 }, () => stream({ topics: 'users/me' }, user.token));
    await Promise.all(five.map(connected));
    const sixth = await api.get('/realtime', { query: { topics: 'users/me' }, bearer: user.token });
    expect(sixth.status).toBe(429);
    five[0]!.close();
    await sleep(300);
    const again = stream({ topics: 'users/me' }, user.token);
    await connected(again);
  });
});
