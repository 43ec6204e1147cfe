import jwt from 'jsonwebtoken';
import { aSignedInUser, anArticle, anUnsignedToken, aToken, tampered } from '../support/actors';
import { client, type Client } from '../support/http';
import { articleView, expectProblem, expectShape } from '../support/shapes';
import { documentsMatching } from '../support/side-effects';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
let api: Client;
let author: { id: string; token: string };

beforeAll(async () => {
  stack = await startTestStack();
  api = client(stack.url);
  author = await aSignedInUser(api, stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function expectNoArticle(title: string): Promise<void> {
  expect(await documentsMatching(stack.db('articles'), { title })).toEqual([]);
}

describe('POST /articles', () => {
  test('when a user token is sent in a form body, then 201 with the view, owned by the user, and GET /articles/:id returns it', async () => {
    const article = anArticle();

    const reply = await api.post('/articles', { form: { ...article, access_token: author.token } });

    expect(reply.status).toBe(201);
    expectShape(reply.body, articleView, 'article view');
    expect(reply.body).toMatchObject({ ...article, user: { id: author.id } });
    expect(reply.body.updatedAt).toBe(reply.body.createdAt);
    const fetched = await api.get(`/articles/${reply.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(reply.body);
    expect(await documentsMatching(stack.db('articles'), { title: article.title })).toHaveLength(1);
  });

  test('when the token comes as Authorization: Bearer with a JSON body, then 201', async () => {
    const article = anArticle();

    const reply = await api.post('/articles', { bearer: author.token, json: article });

    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ ...article, user: { id: author.id } });
  });

  test('when the token comes in the query string, then 201', async () => {
    const article = anArticle();

    const reply = await api.post('/articles', { query: { access_token: author.token }, form: article });

    expect(reply.status).toBe(201);
  });

  test('when no token is sent, then 401 with WWW-Authenticate, and nothing is written', async () => {
    const article = anArticle();

    const reply = await api.post('/articles', { form: article });

    expectProblem(reply, 401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="restgate"');
    await expectNoArticle(article.title);
  });

  test.each([
    ['expired', () => aToken(stack, author.id, { iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 })],
    ['tampered', () => tampered(author.token)],
    ['alg: none', () => anUnsignedToken(stack, author.id)],
    ['signed with another secret', () => aToken(stack, author.id, {}, 'another-secret-another-secret-another-secret')],
    ['for another audience', () => aToken(stack, author.id, { aud: 'someone-else' })],
    [
      'without exp',
      () =>
        jwt.sign({ sub: author.id, id: author.id, role: 'user', iss: stack.jwt.issuer, aud: stack.jwt.audience }, stack.secrets.JWT_SECRET),
    ],
    ['not a JWT at all', () => 'garbage'],
  ])('when the token is %s, then 401 invalid_token, and nothing is written', async (_kind, makeToken) => {
    const article = anArticle();

    const reply = await api.post('/articles', { form: { ...article, access_token: makeToken() } });

    expectProblem(reply, 401);
    expect(reply.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    await expectNoArticle(article.title);
  });

  test('when the master key is sent instead of a user token, then 403, and nothing is written', async () => {
    const article = anArticle();

    const reply = await api.post('/articles', { form: { ...article, access_token: stack.secrets.MASTER_KEY } });

    expectProblem(reply, 403);
    await expectNoArticle(article.title);
  });

  test.each([
    ['the query string and the body', { query: { access_token: 'TOKEN' }, form: { access_token: 'TOKEN' } }],
    ['the body and a Bearer header', { bearer: 'TOKEN', form: { access_token: 'TOKEN' } }],
    ['the query string and a Bearer header', { bearer: 'TOKEN', query: { access_token: 'TOKEN' } }],
  ])('when the token is given in %s, then 400, and nothing is written', async (_places, shape) => {
    const article = anArticle();
    const withToken = (o?: Record<string, string>) =>
      o ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v === 'TOKEN' ? author.token : v])) : undefined;
    const form = { ...article, ...withToken('form' in shape ? shape.form : undefined) };

    const reply = await api.post('/articles', {
      form,
      query: withToken('query' in shape ? shape.query : undefined),
      bearer: 'bearer' in shape ? author.token : undefined,
    });

    expectProblem(reply, 400, { code: 'credential_ambiguous' });
    await expectNoArticle(article.title);
  });

  test('when the title is missing, then 400 naming title, and nothing is written', async () => {
    const article = anArticle();

    const reply = await api.post('/articles', { form: { content: article.content, access_token: author.token } });

    expectProblem(reply, 400, { code: 'validation_failed', param: 'title' });
    expect(await documentsMatching(stack.db('articles'), { content: article.content })).toEqual([]);
  });

  test('when the form body carries title[$ne]=, then 400, and nothing is written', async () => {
    const article = anArticle();
    const body = new URLSearchParams({ 'title[$ne]': '', content: article.content, access_token: author.token });

    const reply = await api.post('/articles', { form: body.toString() });

    expectProblem(reply, 400, { code: 'validation_failed', param: 'title' });
    expect(await documentsMatching(stack.db('articles'), { content: article.content })).toEqual([]);
  });

  test("when the JSON body's content holds a NUL character, then 400 string.nul naming content, and nothing is written", async () => {
    const article = anArticle();

    const reply = await api.post('/articles', { bearer: author.token, json: { title: article.title, content: 'before\u0000after' } });

    expectProblem(reply, 400, { code: 'validation_failed', param: 'content' });
    expect(reply.body.errors).toEqual([expect.objectContaining({ param: 'content', rule: 'string.nul' })]);
    await expectNoArticle(article.title);
  });
});

describe('GET /articles/:id', () => {
  test('when the id is unknown, then 404', async () => {
    expectProblem(await api.get('/articles/0123456789abcdef01234567'), 404);
  });

  test('when the id is not well formed, then 404', async () => {
    expectProblem(await api.get('/articles/not-an-id'), 404);
  });
});

describe('rules', () => {
  test("when the API docs are read, then each article route says its rule: articles keep today's presets", async () => {
    const doc = (await api.get('/openapi.json')).body;

    expect(doc.paths['/articles'].get['x-restgate-rule']).toBe('public');
    expect(doc.paths['/articles'].post['x-restgate-rule']).toBe('user');
    expect(doc.paths['/articles/{id}'].get['x-restgate-rule']).toBe('public');
    expect(doc.paths['/articles/{id}'].patch['x-restgate-rule']).toBe('owner');
    expect(doc.paths['/articles/{id}'].delete['x-restgate-rule']).toBe('owner');
    expect(doc.paths['/articles/{id}'].patch.description).toContain('Rule: `owner`');
  });
});
