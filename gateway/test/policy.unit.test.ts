import { routeKey } from '@restgate/shared';
import { createPolicyMatcher, effectivePolicy, POLICY_TABLE, unknownOverrides, UPSTREAMS, type PolicyRow } from '../src/policy';

const matchRoute = createPolicyMatcher(POLICY_TABLE);

function thrown(fn: () => unknown): { status?: number; code?: string; headers?: Record<string, string> } {
  try {
    fn();
  } catch (err) {
    return err as { status: number; code: string; headers: Record<string, string> };
  }
  throw new Error('expected a throw');
}

describe('the policy table', () => {
  test('every method + path appears once and names a known upstream', () => {
    const keys = POLICY_TABLE.map((row) => routeKey(row.method, row.path));

    expect(new Set(keys).size).toBe(keys.length);
    for (const row of POLICY_TABLE) expect(Object.keys(UPSTREAMS)).toContain(row.upstream);
  });

  test.each([
    ['POST', '/users', 'master', 'identity'],
    ['GET', '/users', 'admin', 'identity'],
    ['GET', '/users/me', 'user', 'identity'],
    ['GET', '/users/0123456789abcdef01234567', 'public', 'identity'],
    ['PUT', '/users/me', 'user', 'identity'],
    ['PATCH', '/users/0123456789abcdef01234567', 'user', 'identity'],
    ['PUT', '/users/me/password', 'basic', 'identity'],
    ['DELETE', '/users/0123456789abcdef01234567', 'admin', 'identity'],
    ['POST', '/auth', 'master+basic', 'identity'],
    ['POST', '/auth/github', 'provider', 'identity'],
    ['POST', '/password-resets', 'master', 'identity'],
    ['GET', '/password-resets/abc', 'public', 'identity'],
    ['PUT', '/password-resets/abc', 'public', 'identity'],
    ['POST', '/articles', 'user', 'articles'],
    ['GET', '/articles', 'public', 'articles'],
    ['HEAD', '/articles', 'public', 'articles'],
    ['GET', '/articles/abc', 'public', 'articles'],
    ['DELETE', '/articles/abc', 'user', 'articles'],
  ])('%s %s is %s, served by %s', (method, path, level, upstream) => {
    expect(matchRoute(method, path)).toMatchObject({ level, upstream });
  });
});

describe('createPolicyMatcher', () => {
  test('a literal segment wins over a parameter, whatever the row order', () => {
    const rows: PolicyRow[] = [
      { method: 'get', path: '/things/:id', level: 'public', upstream: 'articles' },
      { method: 'get', path: '/things/mine', level: 'user', upstream: 'articles' },
    ];

    expect(createPolicyMatcher(rows)('GET', '/things/mine').level).toBe('user');
    expect(createPolicyMatcher(rows)('GET', '/things/other').level).toBe('public');
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
    const table = effectivePolicy('POST /users=public; GET /articles=user');

    expect(createPolicyMatcher(table)('POST', '/users').level).toBe('public');
    expect(createPolicyMatcher(table)('GET', '/articles').level).toBe('user');
    expect(createPolicyMatcher(table)('GET', '/users').level).toBe('admin');
  });

  test('a malformed override or an unknown level throws', () => {
    expect(() => effectivePolicy('POST /users')).toThrow(/ROUTE_POLICY/);
    expect(() => effectivePolicy('POST /users=everyone')).toThrow(/ROUTE_POLICY/);
  });

  test('unknownOverrides names overrides that match no row', () => {
    expect(unknownOverrides('POST /users=public;GET /user=public;GET /articles/:articleId=user')).toEqual([
      'GET /user',
      'GET /articles/:articleId',
    ]);
  });
});
