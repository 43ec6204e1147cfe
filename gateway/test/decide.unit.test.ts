import { errors, type Principal } from '@restgate/shared';
import type { Authenticator } from '../src/authenticate';
import { credentialsInSight, decide as decideWith, tokensGiven, type Presented } from '../src/decide';
import type { PolicyRow } from '../src/policy';

const ALICE: Principal = { kind: 'user', id: '0123456789abcdef01234567', role: 'user' };
/** Knows one token, "alice-token"; any other is the 401 a bad credential gets. */
const authenticate: Authenticator = (token) => {
  if (token === 'alice-token') return ALICE;
  throw errors.unauthorized('The token is not valid.', true);
};

const row = (level: PolicyRow['level'], method: PolicyRow['method'] = 'get', path = '/things'): PolicyRow => ({
  method,
  path,
  level,
  upstream: 'things',
});

function presented(options: { query?: string; authorization?: string; body?: string; type?: string; provider?: boolean }): Presented {
  const query = options.query ?? '';
  return {
    headers: options.type ? { 'content-type': options.type } : {},
    query,
    body: options.body === undefined ? undefined : Buffer.from(options.body),
    seen: options.provider ? undefined : credentialsInSight(query, options.authorization),
  };
}

/** No role needs a second factor (MFA_REQUIRED_ROLES empty) unless a test says so. */
const decide = (route: PolicyRow, request: Presented, auth: Authenticator) => decideWith(route, request, auth, []);

function refusal(fn: () => unknown): { status?: number; code?: string } {
  try {
    fn();
  } catch (err) {
    return err as { status?: number; code?: string };
  }
  throw new Error('expected a refusal');
}

describe('decide', () => {
  test('when no credential comes to a public route, then the caller is anonymous and nothing is rewritten', () => {
    const admission = decide(row('public'), presented({ query: 'limit=5' }), authenticate);

    expect(admission).toEqual({ principal: { kind: 'anonymous' }, query: 'limit=5', body: undefined, keepAuthorization: false });
  });

  test('when a token comes in the query, then it names the principal and leaves the query', () => {
    const admission = decide(row('user'), presented({ query: 'a=1&access_token=alice-token&b=2' }), authenticate);

    expect(admission.principal).toEqual(ALICE);
    expect(admission.query).toBe('a=1&b=2');
  });

  test('when a token comes in a JSON body, then it names the principal and leaves the body', () => {
    const admission = decide(
      row('user', 'post'),
      presented({ body: '{"access_token":"alice-token","title":"Hi"}', type: 'application/json' }),
      authenticate,
    );

    expect(admission.principal).toEqual(ALICE);
    expect(JSON.parse(admission.body!.toString())).toEqual({ title: 'Hi' });
  });

  test('when tokens come in two places, then it is the 400 of an ambiguous credential', () => {
    const err = refusal(() =>
      decide(row('user'), presented({ query: 'access_token=alice-token', authorization: 'Bearer alice-token' }), authenticate),
    );

    expect(err).toMatchObject({ status: 400, code: 'credential_ambiguous' });
  });

  test('when a bad token comes to a public route, then it is a 401, not anonymous', () => {
    expect(refusal(() => decide(row('public'), presented({ authorization: 'Bearer forged' }), authenticate))).toMatchObject({
      status: 401,
      code: 'invalid_token',
    });
  });

  test('when no credential comes to a user route, then it is a 401', () => {
    expect(refusal(() => decide(row('user'), presented({}), authenticate))).toMatchObject({ status: 401 });
  });

  test('when a user calls an admin route, then it is a 403', () => {
    expect(refusal(() => decide(row('admin'), presented({ authorization: 'Bearer alice-token' }), authenticate))).toMatchObject({
      status: 403,
    });
  });

  test('when Authorization is HTTP Basic on a basic route, then it goes on to the service; a Bearer one never does', () => {
    const basic = `Basic ${Buffer.from('a@example.test:secret-123').toString('base64')}`;

    expect(decide(row('basic', 'put'), presented({ authorization: basic }), authenticate).keepAuthorization).toBe(true);
    expect(decide(row('user'), presented({ authorization: 'Bearer alice-token' }), authenticate).keepAuthorization).toBe(false);
  });

  test('when the route is a provider route, then its body and Authorization go on untouched, as anonymous', () => {
    const body = '{"access_token":"provider-token"}';
    const admission = decide(
      row('provider', 'post'),
      presented({ provider: true, body, type: 'application/json', authorization: 'Bearer x' }),
      authenticate,
    );

    expect(admission).toEqual({ principal: { kind: 'anonymous' }, query: '', body: Buffer.from(body), keepAuthorization: true });
  });
});

describe('decide with MFA_REQUIRED_ROLES', () => {
  const ADMIN: Principal = { kind: 'user', id: '0123456789abcdef01234568', role: 'admin' };
  const asAdmin: Authenticator = (token) => (token === 'admin-token' ? ADMIN : authenticate(token));

  test('when a listed role comes to an admin route with one factor, then it is refused with mfa_required', () => {
    const request = presented({ authorization: 'Bearer admin-token' });

    expect(refusal(() => decideWith(row('admin'), request, asAdmin, ['admin']))).toMatchObject({ status: 401, code: 'mfa_required' });
    expect(decideWith(row('admin'), request, asAdmin, ['user']).principal).toEqual(ADMIN);
  });

  test('when the route is not admin-level, then a listed role passes without a second factor, marked so that its rights over others do not apply', () => {
    expect(decideWith(row('user'), presented({ authorization: 'Bearer admin-token' }), asAdmin, ['admin']).principal).toEqual({
      ...ADMIN,
      needsSecondFactor: true,
    });
  });

  test('when the role is not listed, or the session has a second factor, then the principal goes on unmarked', () => {
    expect(decideWith(row('user'), presented({ authorization: 'Bearer admin-token' }), asAdmin, ['user']).principal).toEqual(ADMIN);
    const withCode = () => ({ ...ADMIN, amr: ['pwd', 'otp'] });
    expect(decideWith(row('user'), presented({ authorization: 'Bearer admin-token' }), withCode, ['admin']).principal).toEqual(withCode());
  });
});

describe('tokensGiven', () => {
  test('when access_token is empty, then it is no token given; a Bearer one is', () => {
    expect(tokensGiven(credentialsInSight('access_token=', 'Bearer abc'))).toEqual(['abc']);
  });
});
