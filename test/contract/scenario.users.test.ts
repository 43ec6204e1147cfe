/**
 * A realistic walk through the users routes at the gateway: the master key signs up an admin
 * and two users (form bodies), each signs in, then every users route is called by each kind of
 * caller. Every reply is checked for shape; after every refused request the record it named is
 * stored exactly as before.
 */
import { uniqueSuffix } from '@restgate/shared/testing';
import { signIn } from '../support/actors';
import { aMember, type Member } from '../support/cast';
import { client, type Client, type Reply } from '../support/http';
import { storedRecord, untouched } from '../support/records';
import { expectJson, expectListing, expectNoContent, linksOf, userPublicView } from '../support/replies';
import { authResult, expectProblem, ownUserView, userFullView } from '../support/shapes';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
let api: Client;
/** In the e-mail of the cast (admin, alice, bob) only, so `q=<marker>` finds exactly them. */
const marker = `cast${uniqueSuffix()}`;
let admin: Member;
let alice: Member;
let bob: Member;

beforeAll(async () => {
  stack = await startTestStack();
  api = client(stack.url);
  // One after the other: the default sort (-createdAt) then lists bob, alice, admin.
  admin = await aMember(api, stack, 'admin', { marker, role: 'admin' });
  alice = await aMember(api, stack, 'alice', { marker });
  bob = await aMember(api, stack, 'bob', { marker });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const identityDb = () => stack.db('identity');
const byToken = (member: Member) => ({ bearer: member.token });
const basicOf = (member: Member) => ({ basic: { user: member.credentials.email, password: member.credentials.password } });
/** A password change's credentials: the member's Basic, and their token as access_token (the header carries Basic). */
const ownPasswordChange = (member: Member, password: string) => ({ ...basicOf(member), form: { password, access_token: member.token } });
/** Someone outside the cast (another marker), for the routes that change passwords or delete. */
const aBystander = (alias: string) => aMember(api, stack, alias, { marker: `other${uniqueSuffix()}` });

function expectAllow(reply: Reply, methods: string[]): void {
  expectProblem(reply, 405, { code: 'method_not_allowed' });
  const allow = (reply.headers.get('allow') ?? '').split(/,\s*/);
  expect(allow.sort()).toEqual([...methods].sort());
}

describe('the cast', () => {
  test('when the master key signs up an admin and two users, then their full views carry the roles and the documented defaults', async () => {
    expect([admin.view.role, alice.view.role, bob.view.role]).toEqual(['admin', 'user', 'user']);
    for (const member of [admin, alice, bob]) {
      expect(member.view.name).toBe(member.credentials.email.split('@')[0]);
      expect(member.view.picture).toMatch(/^https:\/\/gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon$/);
    }
  });
});

describe('GET /users (admin)', () => {
  const listAs = (member: Member, query: Record<string, string>) => api.get('/users', { ...byToken(member), query });

  test('when the admin searches the marker, then the three of the cast, newest first, with the full views', async () => {
    const reply = await listAs(admin, { q: marker });

    const rows = expectListing(reply, userFullView, { count: 3, page: 1, limit: 30 });
    expect(rows.map((row) => row.id)).toEqual([bob.id, alice.id, admin.id]);
    expect(rows[2]).toEqual(admin.view);
    expect(linksOf(reply).first!.params.get('q')).toBe(marker);
  });

  test('when q is the marker in upper case, then the search is case-insensitive', async () => {
    const rows = expectListing(await listAs(admin, { q: marker.toUpperCase() }), userFullView, { count: 3, page: 1, limit: 30 });

    expect(rows).toHaveLength(3);
  });

  test('when paging by 2 sorted by email, then page 1 links to page 2, and following next gives the rest', async () => {
    const first = await listAs(admin, { q: marker, sort: 'email', limit: '2', page: '1' });
    const firstRows = expectListing(first, userFullView, { count: 3, page: 1, limit: 2 });
    const next = linksOf(first).next!;
    expect(next.params.get('q')).toBe(marker);
    expect(next.params.get('sort')).toBe('email');

    const second = await api.get(next.path, byToken(admin));

    const secondRows = expectListing(second, userFullView, { count: 3, page: 2, limit: 2, byCursor: true });
    expect([...firstRows, ...secondRows].map((row) => row.id)).toEqual([admin.id, alice.id, bob.id]);
  });

  test('when sorted by -email, then descending', async () => {
    const rows = expectListing(await listAs(admin, { q: marker, sort: '-email' }), userFullView, { count: 3, page: 1, limit: 30 });

    expect(rows.map((row) => row.id)).toEqual([bob.id, alice.id, admin.id]);
  });

  test('when fields=email,role, then each row has id, email and role only', async () => {
    const reply = await listAs(admin, { q: marker, fields: 'email,role', sort: 'email' });

    const rows = expectListing(reply, userFullView, { count: 3, page: 1, limit: 30, fields: ['email', 'role'] });
    expect(rows[0]).toEqual({ id: admin.id, email: admin.view.email, role: 'admin' });
  });

  test('when fields names id too, then id comes back once, as it always does', async () => {
    const reply = await listAs(admin, { q: marker, fields: 'id,name' });

    expectListing(reply, userFullView, { count: 3, page: 1, limit: 30, fields: ['name'] });
  });

  test('when the page is past the end, then no rows and the full count', async () => {
    const rows = expectListing(await listAs(admin, { q: marker, limit: '2', page: '3' }), userFullView, { count: 3, page: 3, limit: 2 });

    expect(rows).toEqual([]);
  });

  test.each([
    ['sort', { sort: 'password' }],
    ['sort', { sort: 'passwordHash' }],
    ['fields', { fields: 'password' }],
    ['fields', { fields: 'email,passwordHash' }],
    ['limit', { limit: '101' }],
    ['page', { page: '0' }],
    ['q', { q: 'x'.repeat(101) }],
  ])('when the listing asks for a bad %s (%j), then 400 naming it', async (param, query) => {
    const reply = await listAs(admin, query);

    expectProblem(reply, 400, { code: 'validation_failed', param });
    expect(reply.text).not.toMatch(/\$2[aby]\$/); // no password hash, whatever the error says
  });

  test('when a user lists users, then 403', async () => {
    expectProblem(await listAs(alice, { q: marker }), 403);
  });

  test('when the master key lists users, then 403: the master key is not an admin', async () => {
    expectProblem(await api.get('/users', { query: { access_token: stack.secrets.MASTER_KEY } }), 403);
  });

  test('when nobody signed in lists users, then 401 with WWW-Authenticate', async () => {
    const reply = await api.get('/users', { query: { q: marker } });

    expectProblem(reply, 401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="restgate"');
  });
});

describe('GET /users/me', () => {
  test('when a user asks, then 200 with their own full view', async () => {
    const view = expectJson(await api.get('/users/me', byToken(bob)), 200, ownUserView);

    expect(view).toMatchObject({ id: bob.id, email: bob.credentials.email, role: 'user', mfa: { totp: false } });
  });

  test('when the token is in the query string, then the same', async () => {
    const view = expectJson(await api.get('/users/me', { query: { access_token: admin.token } }), 200, ownUserView);

    expect(view).toMatchObject({ id: admin.id, role: 'admin' });
  });

  test('when the master key asks, then 403; when nobody, then 401', async () => {
    expectProblem(await api.get('/users/me', { query: { access_token: stack.secrets.MASTER_KEY } }), 403);
    expectProblem(await api.get('/users/me'), 401);
  });
});

describe('GET /users/:id', () => {
  test('when anyone asks, then 200 with the public view only (no e-mail, no role)', async () => {
    const anonymous = expectJson(await api.get(`/users/${alice.id}`), 200, userPublicView, 'public view');
    const asBob = expectJson(await api.get(`/users/${alice.id}`, byToken(bob)), 200, userPublicView, 'public view');

    expect(Object.keys(anonymous).sort()).toEqual(['id', 'name', 'picture']);
    expect(anonymous.id).toBe(alice.id);
    expect(asBob).toEqual(anonymous);
  });

  test.each([
    ['unknown', '0123456789abcdef01234567'],
    ['not well formed', 'not-an-id'],
  ])('when the id is %s, then 404', async (_kind, id) => {
    expectProblem(await api.get(`/users/${id}`, byToken(admin)), 404);
  });
});

describe('PUT and PATCH /users/:id and /users/me', () => {
  const paths = [
    ['PUT', 'me'],
    ['PATCH', 'me'],
    ['PUT', ':id'],
    ['PATCH', ':id'],
  ] as const;

  test.each(paths)(
    'when the user sends %s /users/%s with one field, then it changes, the other stays, and role and email in the body are ignored',
    async (method, which) => {
      const path = which === 'me' ? '/users/me' : `/users/${alice.id}`;
      // A write answers the full view; GET /users/me adds `mfa` (toEqual ignores an undefined member).
      const before = { ...expectJson(await api.get('/users/me', byToken(alice)), 200, ownUserView), mfa: undefined };
      const name = `Alice ${uniqueSuffix()}`;
      const picture = `https://example.test/pictures/${uniqueSuffix()}.png`;

      const named = await api.request(method, path, {
        ...byToken(alice),
        form: { name, role: 'admin', email: `taken.${uniqueSuffix()}@example.test` },
      });
      const pictured = await api.request(method, path, { ...byToken(alice), json: { picture, role: 'admin' } });

      expect(expectJson(named, 200, userFullView)).toEqual({ ...before, name });
      expect(expectJson(pictured, 200, userFullView)).toEqual({ ...before, name, picture });
      expect(await storedRecord(identityDb(), alice.id)).toMatchObject({ role: 'user', email: alice.credentials.email, name, picture });
      expect(expectJson(await api.get(`/users/${alice.id}`), 200, userPublicView)).toEqual({ id: alice.id, name, picture });
    },
  );

  test.each(['PUT', 'PATCH'])("when the other user sends %s /users/<alice's id>, then 403, and alice is unchanged", async (method) => {
    const reply = await untouched(identityDb(), alice.id, () =>
      api.request(method, `/users/${alice.id}`, { ...byToken(bob), form: { name: 'Not Alice' } }),
    );

    expectProblem(reply, 403, { code: 'not_your_profile' });
  });

  test('when the admin patches a user, then 200 with the change, and the role stays', async () => {
    const name = `Renamed by admin ${uniqueSuffix()}`;

    const reply = await api.request('PATCH', `/users/${bob.id}`, { ...byToken(admin), form: { name } });

    expect(expectJson(reply, 200, userFullView)).toMatchObject({ id: bob.id, name, role: 'user', email: bob.credentials.email });
    expect(await storedRecord(identityDb(), bob.id)).toMatchObject({ name, role: 'user' });
  });

  test('when the admin puts a picture on a user, then 200, and the name stays', async () => {
    const before = { ...expectJson(await api.get('/users/me', byToken(bob)), 200, ownUserView), mfa: undefined };
    const picture = `https://example.test/by-admin/${uniqueSuffix()}.png`;

    const reply = await api.request('PUT', `/users/${bob.id}`, { ...byToken(admin), form: { picture } });

    expect(expectJson(reply, 200, userFullView)).toEqual({ ...before, picture });
  });

  test('when the master key updates a profile, then 403, and the user is unchanged', async () => {
    const reply = await untouched(identityDb(), alice.id, () =>
      api.request('PUT', `/users/${alice.id}`, { form: { name: 'By master', access_token: stack.secrets.MASTER_KEY } }),
    );

    expectProblem(reply, 403);
  });

  test('when nobody signed in updates a profile, then 401, and the user is unchanged', async () => {
    const reply = await untouched(identityDb(), alice.id, () =>
      api.request('PATCH', `/users/${alice.id}`, { form: { name: 'Anonymous' } }),
    );

    expectProblem(reply, 401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="restgate"');
  });

  test.each([
    ['name', { name: '' }],
    ['name', { name: 'x'.repeat(129) }],
    ['picture', { picture: 'not a url' }],
    ['picture', { picture: 'javascript:alert(1)' }],
  ])('when the %s is not valid (%j), then 400 naming it, and the user is unchanged', async (param, form) => {
    const reply = await untouched(identityDb(), alice.id, () => api.request('PATCH', '/users/me', { ...byToken(alice), form }));

    expectProblem(reply, 400, { code: 'validation_failed', param });
  });

  test('when the admin updates an unknown user, then 404', async () => {
    expectProblem(await api.request('PATCH', '/users/0123456789abcdef01234567', { ...byToken(admin), form: { name: 'Nobody' } }), 404);
  });
});

describe("PUT /users/:id/password (the user's token and their Basic)", () => {
  test('when the user sends their token and their own Basic to /users/me/password, then 200, the old password no longer signs in, the new one does', async () => {
    const carol = await aBystander('carol');
    const password = `new-${uniqueSuffix()}`;

    const reply = await api.request('PUT', '/users/me/password', ownPasswordChange(carol, password));

    expect(expectJson(reply, 200, userFullView)).toEqual(carol.view);
    expectProblem(await signIn(api, stack, carol.credentials), 401);
    expectJson(await signIn(api, stack, { email: carol.credentials.email, password }), 201, authResult);
  });

  test('when the user sends their token and own Basic to /users/<own id>/password, then 200 as well', async () => {
    const dan = await aBystander('dan');
    const password = `new-${uniqueSuffix()}`;

    const reply = await api.request('PUT', `/users/${dan.id}/password`, ownPasswordChange(dan, password));

    expect(expectJson(reply, 200, userFullView)).toEqual(dan.view);
    expectJson(await signIn(api, stack, { email: dan.credentials.email, password }), 201, authResult);
  });

  test.each([
    ['a Bearer header', (m: Member) => ({ bearer: m.token, form: { password: 'a-new-password' } })],
    ['access_token in the body', (m: Member) => ({ form: { password: 'a-new-password', access_token: m.token } })],
  ])('when the user sends only their JWT (%s), then 401 asking for Basic, and the password is unchanged', async (_place, options) => {
    const erin = await aBystander('erin');

    const reply = await untouched(identityDb(), erin.id, () => api.request('PUT', '/users/me/password', options(erin)));

    expectProblem(reply, 401);
    expect(reply.headers.get('www-authenticate')).toMatch(/^Basic realm="restgate"/);
    expectJson(await signIn(api, stack, erin.credentials), 201, authResult);
  });

  test("when a user sends their own token and Basic to another user's /password, then 403, and neither password changes", async () => {
    const frank = await aBystander('frank');
    const grace = await aBystander('grace');

    const reply = await untouched(identityDb(), frank.id, () =>
      untouched(identityDb(), grace.id, () => api.request('PUT', `/users/${frank.id}/password`, ownPasswordChange(grace, 'hijacked-1'))),
    );

    expectProblem(reply, 403, { code: 'not_your_password' });
    expectJson(await signIn(api, stack, frank.credentials), 201, authResult);
  });

  test('when the current password is wrong, then 401, and the password is unchanged', async () => {
    const heidi = await aBystander('heidi');
    const wrong = { basic: { user: heidi.credentials.email, password: 'not-the-password' } };

    const reply = await untouched(identityDb(), heidi.id, () =>
      api.request('PUT', '/users/me/password', { ...wrong, form: { password: 'whatever-1', access_token: heidi.token } }),
    );

    expectProblem(reply, 401, { code: 'invalid_credentials' });
  });

  test('when the right Basic comes without the user token, then 401 naming the token, and the password is unchanged', async () => {
    const judy = await aBystander('judy');

    const reply = await untouched(identityDb(), judy.id, () =>
      api.request('PUT', '/users/me/password', { ...basicOf(judy), form: { password: 'whatever-1' } }),
    );

    expectProblem(reply, 401, { code: 'user_token_missing' });
    expectJson(await signIn(api, stack, judy.credentials), 201, authResult);
  });

  test.each([
    ['too short', 'short'],
    ['longer than 256 characters', 'é'.repeat(257)],
  ])('when the new password is %s, then 400 naming password, and the password is unchanged', async (_kind, password) => {
    const ivan = await aBystander('ivan');

    const reply = await untouched(identityDb(), ivan.id, () => api.request('PUT', '/users/me/password', ownPasswordChange(ivan, password)));

    expectProblem(reply, 400, { code: 'validation_failed', param: 'password' });
  });
});

describe('DELETE /users/:id (admin)', () => {
  test('when a user, the master key or nobody deletes a user, then 403, 403, 401, and the user is still there', async () => {
    const judy = await aBystander('judy');
    const del = (options = {}) => untouched(identityDb(), judy.id, () => api.request('DELETE', `/users/${judy.id}`, options));

    expectProblem(await del(byToken(alice)), 403);
    expectProblem(await del(byToken(judy)), 403);
    expectProblem(await del({ query: { access_token: stack.secrets.MASTER_KEY } }), 403);
    expectProblem(await del(), 401);
    expectJson(await api.get(`/users/${judy.id}`), 200, userPublicView);
  });

  test('when the admin deletes a user, then 204, the user is gone (404), cannot sign in (401), and a second delete is a 404', async () => {
    const mallory = await aBystander('mallory');

    const reply = await api.request('DELETE', `/users/${mallory.id}`, byToken(admin));

    expectNoContent(reply);
    expectProblem(await api.get(`/users/${mallory.id}`), 404);
    expectProblem(await signIn(api, stack, mallory.credentials), 401);
    expect(await storedRecord(identityDb(), mallory.id)).toBeNull();
    expectProblem(await api.request('DELETE', `/users/${mallory.id}`, byToken(admin)), 404);
  });

  test('when the admin deletes a malformed id, then 404', async () => {
    expectProblem(await api.request('DELETE', '/users/not-an-id', byToken(admin)), 404);
  });
});

describe('routes', () => {
  test('when the path is unknown, then a 404 problem', async () => {
    expectProblem(await api.get(`/users/${alice.id}/friends`, byToken(admin)), 404, { code: 'route_not_found' });
  });

  test('when a known path gets another method, then 405 with Allow, and nothing changes', async () => {
    expectAllow(await api.request('PATCH', '/users', byToken(admin)), ['GET', 'HEAD', 'POST']);
    const reply = await untouched(identityDb(), alice.id, () =>
      api.post(`/users/${alice.id}`, { ...byToken(alice), form: { name: 'Posted' } }),
    );
    expectAllow(reply, ['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']);
  });
});
