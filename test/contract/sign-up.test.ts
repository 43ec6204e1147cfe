import { aSignedInUser, aUser, signUp } from '../support/actors';
import { client, type Client } from '../support/http';
import { expectProblem, expectShape, userFullView } from '../support/shapes';
import { documentCount, documentsMatching } from '../support/side-effects';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
let api: Client;

beforeAll(async () => {
  stack = await startTestStack();
  api = client(stack.url);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function expectNoUser(email: string): Promise<void> {
  expect(await documentsMatching(stack.db('identity'), { email })).toEqual([]);
}

describe('POST /users', () => {
  test('when the master key and a form body are sent, then 201 with the full view, and the user is stored with a hash', async () => {
    const user = aUser();

    const reply = await signUp(api, stack, user);

    expect(reply.status).toBe(201);
    expectShape(reply.body, userFullView, 'user view');
    expect(reply.body).toMatchObject({ email: user.email, role: 'user', name: user.email.split('@')[0] });
    expect(reply.body.picture).toMatch(/^https:\/\/gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon$/);
    const stored = await documentsMatching(stack.db('identity'), { email: user.email });
    expect(stored).toHaveLength(1);
    expect(String(stored[0]!._id)).toBe(reply.body.id);
    expect(JSON.stringify(stored[0])).not.toContain(user.password);
  });

  test('when the body is JSON, then 201 with the full view', async () => {
    const user = aUser();

    const reply = await api.post('/users', { json: { ...user, access_token: stack.secrets.MASTER_KEY } });

    expect(reply.status).toBe(201);
    expectShape(reply.body, userFullView, 'user view');
    expect(reply.body.email).toBe(user.email);
  });

  test('when role=admin is sent with the master key, then the user is an admin', async () => {
    const reply = await signUp(api, stack, aUser(), { role: 'admin' });

    expect(reply.status).toBe(201);
    expect(reply.body.role).toBe('admin');
  });

  test('when no master key is sent, then 401 with WWW-Authenticate, and nothing is written', async () => {
    const user = aUser();

    const reply = await api.post('/users', { form: { email: user.email, password: user.password } });

    expectProblem(reply, 401);
    expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer realm="restgate"/);
    await expectNoUser(user.email);
  });

  test('when a wrong master key is sent, then 401, and nothing is written', async () => {
    const user = aUser();

    const reply = await api.post('/users', { form: { ...user, access_token: `${stack.secrets.MASTER_KEY.slice(0, -2)}xx` } });

    expectProblem(reply, 401);
    expect(reply.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    await expectNoUser(user.email);
  });

  test('when a user token is sent instead of the master key, then 403, and nothing is written', async () => {
    const { token } = await aSignedInUser(api, stack);
    const user = aUser();

    const reply = await api.post('/users', { form: { ...user, access_token: token } });

    expectProblem(reply, 403);
    await expectNoUser(user.email);
  });

  test('when even an admin token is sent instead of the master key, then 403', async () => {
    const { token } = await aSignedInUser(api, stack, { role: 'admin' });

    const reply = await api.post('/users', { form: { ...aUser(), access_token: token } });

    expectProblem(reply, 403);
  });

  test('when the e-mail is invalid, then 400 naming email, and nothing is written', async () => {
    const before = await documentCount(stack.db('identity'));

    const reply = await signUp(api, stack, aUser({ email: 'not-an-email' }));

    expectProblem(reply, 400, { code: 'validation_failed', param: 'email' });
    expect(await documentCount(stack.db('identity'))).toBe(before);
  });

  test('when the password is shorter than 8 characters, then 400 naming password, and nothing is written', async () => {
    const user = aUser({ password: 'short' });

    const reply = await signUp(api, stack, user);

    expectProblem(reply, 400, { code: 'validation_failed', param: 'password' });
    await expectNoUser(user.email);
  });

  test('when the e-mail is taken (in another case), then 409 naming email, and the first user stays alone', async () => {
    const user = aUser();
    expect((await signUp(api, stack, user)).status).toBe(201);

    const reply = await signUp(api, stack, { email: user.email.toUpperCase(), password: 'another-password' });

    expectProblem(reply, 409, { param: 'email' });
    expect(await documentsMatching(stack.db('identity'), { email: user.email })).toHaveLength(1);
  });

  test('when the form body carries email[$ne]=, then 400 and nothing is written', async () => {
    const before = await documentCount(stack.db('identity'));
    const body = new URLSearchParams({ 'email[$ne]': '', password: 'a-long-password', access_token: stack.secrets.MASTER_KEY });

    const reply = await api.post('/users', { form: body.toString() });

    expectProblem(reply, 400, { code: 'validation_failed', param: 'email' });
    expect(await documentCount(stack.db('identity'))).toBe(before);
  });

  test('when a JSON body carries an operator object as email, then 400 and nothing is written', async () => {
    const before = await documentCount(stack.db('identity'));

    const reply = await api.post('/users', {
      json: { email: { $ne: '' }, password: 'a-long-password', access_token: stack.secrets.MASTER_KEY },
    });

    expectProblem(reply, 400, { code: 'validation_failed', param: 'email' });
    expect(await documentCount(stack.db('identity'))).toBe(before);
  });

  test('when the master key is given twice (query and body), then 400 and nothing is written', async () => {
    const user = aUser();

    const reply = await api.post('/users', {
      query: { access_token: stack.secrets.MASTER_KEY },
      form: { ...user, access_token: stack.secrets.MASTER_KEY },
    });

    expectProblem(reply, 400, { code: 'credential_ambiguous' });
    await expectNoUser(user.email);
  });
});
