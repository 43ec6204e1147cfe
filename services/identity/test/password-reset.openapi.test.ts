import request from 'supertest';
import type { OpenApiDocument } from '@restgate/shared/openapi';
import { responseMatches, validateOpenApiDocument } from '@restgate/shared/testing';
import { MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';
import { aPasswordReset } from './support/password-resets';

describe('GET /openapi.json (the password-reset routes)', () => {
  let h: IdentityHarness;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    h = await startIdentity();
    doc = (await request(h.app).get('/openapi.json').expect(200)).body as OpenApiDocument;
  });
  afterAll(() => h.close());

  test('when served, then it is valid OpenAPI 3.1 with the three routes at their default levels', () => {
    expect(validateOpenApiDocument(doc)).toEqual({ valid: true, errors: [] });
    expect(doc.paths['/password-resets']?.post).toMatchObject({ 'x-restgate-level': 'master' });
    expect(doc.paths['/password-resets/{token}']?.get).toMatchObject({ 'x-restgate-level': 'public' });
    expect(doc.paths['/password-resets/{token}']?.put).toMatchObject({ 'x-restgate-level': 'public' });
  });

  test('when the API answers, then each real response matches what the document says', async () => {
    const user = await h.aUser();
    // Asked first: a new request replaces the user's earlier tokens.
    const accepted = await h.call('post', '/password-resets', MASTER).send({ email: user.email });
    const { token } = await aPasswordReset(h, user);
    const path = `/password-resets/${token}`;
    const responses = [
      ['post', '/password-resets', accepted],
      ['post', '/password-resets', await h.call('post', '/password-resets', MASTER).send({ email: 'nope' })],
      ['post', '/password-resets', await h.call('post', '/password-resets').send({ email: user.email })],
      ['get', path, await h.call('get', path)],
      ['put', path, await h.call('put', path).send({ password: 'short' })],
      ['put', path, await h.call('put', path).send({ password: 'a-good-new-password' })],
      ['get', path, await h.call('get', path)],
    ] as const;

    const problems = responses.flatMap(
      ([method, url, res]) => responseMatches(doc, method, url, res.status, res.headers['content-type'], res.body).problems,
    );

    expect(responses.map(([, , res]) => res.status)).toEqual([202, 400, 401, 200, 400, 200, 404]);
    expect(problems).toEqual([]);
  });
});
