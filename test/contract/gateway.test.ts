import { signPrincipal } from '@restgate/shared';
import { aSignedInUser, anArticle, aUser } from '../support/actors';
import { client, type Client } from '../support/http';
import { expectProblem } from '../support/shapes';
import { documentsMatching } from '../support/side-effects';
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

describe('the gateway', () => {
  test('when GET /health, then 200', async () => {
    const reply = await api.get('/health');

    expect(reply.status).toBe(200);
  });

  test('when the route is unknown, then 404 problem+json', async () => {
    const reply = await api.get('/no-such-route');

    expectProblem(reply, 404);
  });

  test('when a well-formed X-Request-Id is sent, then it is echoed, also in a proxied error body', async () => {
    const requestId = `contract-${Date.now()}`;

    const ok = await api.get('/health', { headers: { 'x-request-id': requestId } });
    const failed = await api.get('/articles/0123456789abcdef01234567', { headers: { 'x-request-id': requestId } });

    expect(ok.headers.get('x-request-id')).toBe(requestId);
    expect(failed.headers.get('x-request-id')).toBe(requestId);
    expectProblem(failed, 404);
    expect(failed.body.requestId).toBe(requestId);
  });

  test('when no or a malformed X-Request-Id is sent, then one is generated', async () => {
    const none = await api.get('/health');
    const malformed = await api.get('/health', { headers: { 'x-request-id': 'bad id with spaces' } });

    expect(none.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{8,}$/);
    expect(malformed.headers.get('x-request-id')).not.toBe('bad id with spaces');
    expect(malformed.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{8,}$/);
  });

  test('when a client sends its own principal header, then it is ignored (401, nothing written)', async () => {
    const user = aUser();
    const forged = signPrincipal({ kind: 'master' }, stack.secrets.PRINCIPAL_SECRET, 'POST', '/users');

    const reply = await api.post('/users', { form: { ...user }, headers: { 'x-restgate-principal': forged } });

    expectProblem(reply, 401);
    expect(await documentsMatching(stack.db('identity'), { email: user.email })).toEqual([]);
  });

  test('when the body is larger than the limit, then 413, and nothing is written', async () => {
    const { token } = await aSignedInUser(api, stack);
    const article = anArticle({ content: 'x'.repeat(150_000) });

    const reply = await api.post('/articles', { form: { ...article, access_token: token } });

    expectProblem(reply, 413);
    expect(await documentsMatching(stack.db('articles'), { title: article.title })).toEqual([]);
  });

  test('when the body is neither a form nor JSON, then 415', async () => {
    const { token } = await aSignedInUser(api, stack);
    const article = anArticle();

    const reply = await api.post('/articles', {
      bearer: token,
      raw: { contentType: 'text/plain', body: new URLSearchParams(article).toString() },
    });

    expectProblem(reply, 415);
    expect(await documentsMatching(stack.db('articles'), { title: article.title })).toEqual([]);
  });
});
