import { ObjectId } from 'mongodb';
import { basic, expectProblem, MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';

/**
 * Without MFA_ENCRYPTION_KEY: the MFA routes are not served, except the admin's switch-off, and a
 * user whose factor is stored (the key was removed or changed) is still asked for a code: a
 * missing key must never let a password alone in.
 */
describe('multi-factor sign-in without MFA_ENCRYPTION_KEY', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(async () => {
    await h.close();
  });

  const signIn = (email: string, password: string) => h.call('post', '/auth', MASTER).set('Authorization', basic(email, password));

  test('when a user starts an enrolment or signs in with an mfaToken, then 404 route_not_found', async () => {
    const user = await h.aUser();

    const enrol = await h.call('post', '/users/me/mfa/totp', user.principal);
    const second = await h.call('post', '/auth/mfa').send({ mfaToken: 'x', code: '123456' });

    expectProblem(enrol, 404);
    expect(enrol.body.code).toBe('route_not_found');
    expectProblem(second, 404);
  });

  test('when a stored factor is on, then sign-in still answers 401 mfa_required, and the admin switch-off lets the password in again', async () => {
    const user = await h.aUser();
    const admin = await h.aUser({ role: 'admin' });
    await h.db.collection('mfa_factors').insertOne({
      _id: new ObjectId(user.id),
      sealedSecret: 'v1.sealed.under.a-lost-key',
      enabled: true,
      lastStep: 0,
      recoveryCodes: [],
      createdAt: new Date(),
    } as never);

    const refused = await signIn(user.email, user.password);
    expectProblem(refused, 401);
    expect(refused.body.code).toBe('mfa_required');
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="restgate", error="insufficient_user_authentication"');

    expect((await h.call('delete', `/users/${user.id}/mfa`, admin.principal)).status).toBe(204);
    expect((await signIn(user.email, user.password)).status).toBe(201);
    expectProblem(await h.call('delete', `/users/${user.id}/mfa`, admin.principal), 409);
    expectProblem(await h.call('delete', `/users/${user.id}/mfa`, user.principal), 403);
  });
});
