import jwt from 'jsonwebtoken';
import { aSignedInUser, aUser, signIn, signUp } from '../support/actors';
import { client, type Client } from '../support/http';
import { authResult, expectProblem, expectShape } from '../support/shapes';
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

describe('POST /auth', () => {
  test('when Basic e-mail:password and the master key are sent, then 201 with a token and the full view', async () => {
    const user = aUser();
    const created = await signUp(api, stack, user);

    const reply = await signIn(api, stack, user);

    expect(reply.status).toBe(201);
    expectShape(reply.body, authResult, 'sign-in result');
    expect(reply.body.user).toEqual(created.body);
    const claims = jwt.verify(reply.body.token, stack.secrets.JWT_SECRET, {
      algorithms: ['HS256'],
      issuer: stack.jwt.issuer,
      audience: stack.jwt.audience,
    }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: created.body.id, role: 'user' });
    expect(claims.exp).toBeGreaterThan(Date.now() / 1000);
    expect(typeof claims.jti).toBe('string');
  });

  test('when the e-mail is sent in another case, then the user still signs in', async () => {
    const user = aUser();
    await signUp(api, stack, user);

    const reply = await signIn(api, stack, { ...user, email: user.email.toUpperCase() });

    expect(reply.status).toBe(201);
  });

  test('when the password is wrong, then 401 with WWW-Authenticate Basic', async () => {
    const user = aUser();
    await signUp(api, stack, user);

    const reply = await signIn(api, stack, { ...user, password: 'not-the-password' });

    expectProblem(reply, 401);
    expect(reply.headers.get('www-authenticate')).toMatch(/^Basic realm="restgate"/);
    expect(reply.body.token).toBeUndefined();
  });

  test('when the e-mail is unknown, then the same answer as for a wrong password', async () => {
    const known = aUser();
    await signUp(api, stack, known);
    const wrongPassword = await signIn(api, stack, { ...known, password: 'not-the-password' });

    const reply = await signIn(api, stack, aUser());

    expectProblem(reply, 401);
    const { requestId: _a, ...unknownBody } = reply.body;
    const { requestId: _b, ...wrongPasswordBody } = wrongPassword.body;
    expect(unknownBody).toEqual(wrongPasswordBody);
    expect(reply.headers.get('www-authenticate')).toBe(wrongPassword.headers.get('www-authenticate'));
  });

  test('when the master key is missing, then 401 even with the right password', async () => {
    const user = aUser();
    await signUp(api, stack, user);

    const reply = await api.post('/auth', { basic: { user: user.email, password: user.password } });

    expectProblem(reply, 401);
  });

  test('when the master key is wrong, then 401', async () => {
    const user = aUser();
    await signUp(api, stack, user);

    const reply = await api.post('/auth', { basic: { user: user.email, password: user.password }, form: { access_token: 'x'.repeat(43) } });

    expectProblem(reply, 401);
  });

  test('when a user token is sent instead of the master key, then 403', async () => {
    const { token, user } = await aSignedInUser(api, stack);

    const reply = await api.post('/auth', { basic: { user: user.email, password: user.password }, form: { access_token: token } });

    expectProblem(reply, 403);
  });

  test('when the Basic credentials are missing, then 401', async () => {
    const reply = await api.post('/auth', { form: { access_token: stack.secrets.MASTER_KEY } });

    expectProblem(reply, 401);
  });
});
