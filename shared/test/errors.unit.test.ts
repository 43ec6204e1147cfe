import { errorCatalogue, errors, isErrorCatalogue, problem, sharedErrorCatalogue, type ErrorEntry } from '../src/errors';
import { toProblem } from '../src/http/problem';
import { rateLimited } from '../src/limits/rate-limit';

const catalogue = errorCatalogue({
  thing_missing: { status: 404, title: 'Not found', detail: 'No such thing.' },
  thing_busy: { status: 503, title: 'Service unavailable', detail: 'Busy.', headers: { 'Retry-After': '1' }, expected: true },
} as const satisfies Record<string, ErrorEntry>);

describe('errorCatalogue', () => {
  test('when made, then each entry carries its code, and the catalogue and its entries are frozen and recognisable', () => {
    expect(catalogue.thing_missing).toEqual({ code: 'thing_missing', status: 404, title: 'Not found', detail: 'No such thing.' });
    expect(Object.isFrozen(catalogue)).toBe(true);
    expect(Object.isFrozen(catalogue.thing_busy.headers)).toBe(true);
    expect(isErrorCatalogue(catalogue)).toBe(true);
    expect(isErrorCatalogue({ ...catalogue })).toBe(false);
    expect(Object.keys(catalogue)).toEqual(['thing_missing', 'thing_busy']);
  });
});

describe('problem', () => {
  test('when given an entry alone, then the error has its code, status, title, default detail, headers and whether it is expected', () => {
    const err = problem(catalogue.thing_busy);

    expect(err).toMatchObject({
      code: 'thing_busy',
      status: 503,
      title: 'Service unavailable',
      detail: 'Busy.',
      expected: true,
      isOperational: true,
    });
    expect(err.headers).toEqual({ 'Retry-After': '1' });
  });

  test('when given a detail, extras and headers, then they go with the entry (headers on top of its own)', () => {
    const err = problem(catalogue.thing_busy, {
      detail: 'Come back later.',
      extras: { queue: 3 },
      headers: { 'Retry-After': '5', 'X-Other': 'y' },
    });

    expect(toProblem(err, 'r1')).toEqual({
      type: 'urn:restgate:problem:thing_busy',
      title: 'Service unavailable',
      status: 503,
      detail: 'Come back later.',
      code: 'thing_busy',
      requestId: 'r1',
      queue: 3,
    });
    expect(err.headers).toEqual({ 'Retry-After': '5', 'X-Other': 'y' });
  });
});

describe('the shared factories', () => {
  test('when a 401 is made, then its challenge follows its code: no token presented, or one that is not valid', () => {
    expect(errors.unauthorized('Send one.', false)).toMatchObject({
      code: 'credential_missing',
      headers: { 'WWW-Authenticate': 'Bearer realm="restgate"' },
    });
    expect(errors.unauthorized('Expired.', true)).toMatchObject({
      code: 'invalid_token',
      headers: { 'WWW-Authenticate': 'Bearer realm="restgate", error="invalid_token"' },
    });
    expect(errors.basicUnauthorized()).toMatchObject({
      code: 'invalid_credentials',
      detail: 'Wrong e-mail or password.',
      headers: { 'WWW-Authenticate': 'Basic realm="restgate"' },
    });
  });

  test('when the one 429 is made, then it is the catalogue entry with the limit, Retry-After and the draft headers', () => {
    const decision = { name: 'ip', allowed: false, limit: 5, remaining: 0, windowSeconds: 60, resetSeconds: 7 };

    const err = rateLimited(decision);

    expect(err).toMatchObject({
      code: sharedErrorCatalogue.rate_limited.code,
      status: 429,
      title: 'Too many requests',
      extras: { limit: 'ip' },
    });
    expect(err.headers).toMatchObject({ 'Retry-After': '7', RateLimit: '"ip";r=0;t=7' });
    expect('tooManyRequests' in errors).toBe(false);
  });

  test('when the HTTP layer refused a request with a 4xx of its own, then bad_request keeps that status', () => {
    expect(errors.badRequest(431, new Error('x'))).toMatchObject({ code: 'bad_request', status: 431, detail: 'Bad request' });
  });
});
