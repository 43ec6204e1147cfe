import { routeKey } from '@restgate/shared/http';
import { defineSpec } from '@restgate/shared/http';
import { createPolicyLookup, effectivePolicy, policyRowsFrom, unknownOverrides, type PolicyRow } from '../src/policy';
import { POLICY_ROWS, ROUTED_SERVICES } from './support/routes';

/** The row, or the lookup's refusal thrown (so the assertions read as the 404/405 a client gets). */
function createPolicyMatcher(rows: readonly PolicyRow[]): (method: string, path: string) => PolicyRow {
  const lookup = createPolicyLookup(rows);
  return (method, path) => {
    const row = lookup.find(method, path);
    if (!row) throw lookup.refusal(method, path);
    return row;
  };
}

const matchRoute = createPolicyMatcher(POLICY_ROWS);

function thrown(fn: () => unknown): { status?: number; code?: string; headers?: Record<string, string> } {
  try {
    fn();
  } catch (err) {
    return err as { status: number; code: string; headers: Record<string, string> };
  }
  throw new Error('expected a throw');
}

describe("the policy table (from the services' route specs)", () => {
  test('every method + path appears once and names a routed service of the registry', () => {
    const keys = POLICY_ROWS.map((row) => routeKey(row.method, row.path));

    expect(new Set(keys).size).toBe(keys.length);
    for (const row of POLICY_ROWS) expect(ROUTED_SERVICES.map((s) => s.name)).toContain(row.upstream);
  });

  test.each([
    ['POST', '/users', 'master', 'identity'],
    ['GET', '/users', 'admin', 'identity'],
    ['GET', '/users/me', 'user', 'identity'],
    ['GET', '/users/0123456789abcdef01234567', 'public', 'identity'],
    ['PUT', '/users/me', 'user', 'identity'],
    ['PATCH', '/users/me', 'user', 'identity'],
    ['PATCH', '/users/0123456789abcdef01234567', 'user', 'identity'],
    ['PUT', '/users/me/password', 'user+basic', 'identity'],
    ['DELETE', '/users/0123456789abcdef01234567', 'admin', 'identity'],
    ['POST', '/auth', 'master+basic', 'identity'],
    ['POST', '/auth/github', 'provider', 'identity'],
    ['POST', '/password-resets', 'master', 'identity'],
    ['GET', '/password-resets/abc', 'public', 'identity'],
    ['PUT', '/password-resets/abc', 'public', 'identity'],
    ['POST', '/email-verifications', 'master', 'identity'],
    ['GET', '/email-verifications/abc', 'public', 'identity'],
    ['PUT', '/email-verifications/abc', 'public', 'identity'],
    ['POST', '/email-verifications/abc', 'public', 'identity'],
    ['POST', '/articles', 'user', 'articles'],
    ['GET', '/articles', 'public', 'articles'],
    ['HEAD', '/articles', 'public', 'articles'],
    ['GET', '/articles/abc', 'public', 'articles'],
    ['DELETE', '/articles/abc', 'user', 'articles'],
  ])('%s %s is %s, served by %s', (method, path, level, upstream) => {
    expect(matchRoute(method, path)).toMatchObject({ level, upstream });
  });
});

describe('policyRowsFrom', () => {
  const spec = (method: 'get' | 'post', path: string) => defineSpec({ method, path, level: 'public', summary: path });

  test('turns every spec of every service into a row naming that service', () => {
    expect(policyRowsFrom({ one: { a: spec('get', '/a') }, two: { b: spec('post', '/b') } })).toEqual([
      { method: 'get', path: '/a', level: 'public', upstream: 'one', spec: spec('get', '/a') },
      { method: 'post', path: '/b', level: 'public', upstream: 'two', spec: spec('post', '/b') },
    ]);
  });

  test('when two services declare the same method and path, then it throws naming both', () => {
    expect(() => policyRowsFrom({ one: { a: spec('get', '/a') }, two: { a: spec('get', '/a') } })).toThrow(
      'GET /a is declared by both one and two',
    );
  });
});

describe('createPolicyLookup', () => {
  test('a literal segment wins over a parameter, whatever the row order', () => {
    const rows: PolicyRow[] = [
      { method: 'get', path: '/things/:id', level: 'public', upstream: 'articles' },
      { method: 'get', path: '/things/mine', level: 'user', upstream: 'articles' },
    ];

    expect(createPolicyMatcher(rows)('GET', '/things/mine').level).toBe('user');
    expect(createPolicyMatcher(rows)('GET', '/things/other').level).toBe('public');
  });

  test("a literal path is a path of its own for every method: a method only the parameter has is a 405 naming the literal path's methods", () => {
    const rows: PolicyRow[] = [
      { method: 'get', path: '/things/mine', level: 'user', upstream: 'articles' },
      { method: 'get', path: '/things/:id', level: 'public', upstream: 'articles' },
      { method: 'delete', path: '/things/:id', level: 'admin', upstream: 'articles' },
    ];

    expect(thrown(() => createPolicyMatcher(rows)('DELETE', '/things/mine'))).toMatchObject({
      status: 405,
      headers: { Allow: 'GET, HEAD' },
    });
    expect(createPolicyMatcher(rows)('DELETE', '/things/other').level).toBe('admin');
  });

  test('a pattern whose first segment is a parameter is tried for every first segment, in the table order', () => {
    const rows: PolicyRow[] = [
      { method: 'get', path: '/:tenant/things', level: 'public', upstream: 'articles' },
      { method: 'get', path: '/shop/:id', level: 'admin', upstream: 'articles' },
      { method: 'get', path: '/shop/things/mine', level: 'user', upstream: 'articles' },
    ];
    const match = createPolicyMatcher(rows);

    expect(match('GET', '/acme/things').level).toBe('public');
    expect(match('GET', '/shop/things').level).toBe('public');
    expect(match('GET', '/SHOP/other').level).toBe('admin');
    expect(match('GET', '/Shop/Things/Mine').level).toBe('user');
    expect(thrown(() => match('GET', '/acme/other'))).toMatchObject({ status: 404 });
  });

  test('matches the way Express 5 does: a trailing slash and another case are the same route', () => {
    expect(matchRoute('GET', '/articles/').path).toBe('/articles');
    expect(matchRoute('GET', '/Articles').path).toBe('/articles');
  });

  test('an unknown path is a 404 route_not_found', () => {
    expect(thrown(() => matchRoute('GET', '/nope'))).toMatchObject({ status: 404, code: 'route_not_found' });
    expect(thrown(() => matchRoute('GET', '/articles/a/b'))).toMatchObject({ status: 404 });
  });

  test('a bad percent-escape in a parameter does not throw anything but the route', () => {
    expect(matchRoute('GET', '/articles/%E0%A4%A').path).toBe('/articles/:id');
  });

  test('a known path with another method is a 405 whose Allow lists the methods', () => {
    expect(thrown(() => matchRoute('DELETE', '/articles'))).toMatchObject({ status: 405, headers: { Allow: 'POST, GET, HEAD' } });
  });
});

describe('ROUTE_POLICY', () => {
  test('an override changes only the named row', () => {
    const table = effectivePolicy('POST /users=public; GET /articles=user', POLICY_ROWS);

    expect(createPolicyMatcher(table)('POST', '/users').level).toBe('public');
    expect(createPolicyMatcher(table)('GET', '/articles').level).toBe('user');
    expect(createPolicyMatcher(table)('GET', '/users').level).toBe('admin');
  });

  test('a malformed override or an unknown level throws', () => {
    expect(() => effectivePolicy('POST /users', POLICY_ROWS)).toThrow(/ROUTE_POLICY/);
    expect(() => effectivePolicy('POST /users=everyone', POLICY_ROWS)).toThrow(/ROUTE_POLICY/);
  });

  test('unknownOverrides names overrides that match no row', () => {
    expect(unknownOverrides('POST /users=public;GET /user=public;GET /articles/:articleId=user', POLICY_ROWS)).toEqual([
      'GET /user',
      'GET /articles/:articleId',
    ]);
  });

  test("the routes identity serves under /users/me are rows of the gateway's table too, so overriding them is no unknown override", () => {
    expect(unknownOverrides('PUT /users/me=admin;PATCH /users/me=admin;PUT /users/me/password=user', POLICY_ROWS)).toEqual([]);
    expect(createPolicyMatcher(effectivePolicy('PUT /users/me=admin', POLICY_ROWS))('PUT', '/users/me').level).toBe('admin');
  });
});
