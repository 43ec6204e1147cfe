import { PRINCIPAL_HEADER, verifyPrincipal, type Principal } from '@restgate/shared';
import { CLIENT_ADDRESS_HEADER, REQUEST_ID_HEADER, verifyClientAddress } from '@restgate/shared/http';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import type { Admission } from '../src/decide';
import { rewriteForUpstream } from '../src/rewrite';

const ALICE: Principal = { kind: 'user', id: '0123456789abcdef01234567', role: 'user' };
const context = { secret: TEST_PRINCIPAL_SECRET, requestId: 'req-1', clientAddress: '203.0.113.7' };
const admission = (over: Partial<Admission> = {}): Admission => ({
  principal: ALICE,
  query: '',
  body: undefined,
  keepAuthorization: false,
  ...over,
});

describe('rewriteForUpstream', () => {
  test('when a request is let through, then the service gets the signed principal and client address for the path, and the request id', () => {
    const upstream = rewriteForUpstream('GET', '/articles/1', { host: 'api.example' }, admission({ query: 'a=1' }), context);

    expect(upstream.url).toBe('/articles/1?a=1');
    expect(verifyPrincipal(upstream.headers[PRINCIPAL_HEADER] as string, TEST_PRINCIPAL_SECRET, 'GET', '/articles/1')).toEqual(ALICE);
    expect(verifyClientAddress(upstream.headers[CLIENT_ADDRESS_HEADER], TEST_PRINCIPAL_SECRET, 'GET', '/articles/1')).toBe('203.0.113.7');
    expect(upstream.headers[REQUEST_ID_HEADER]).toBe('req-1');
    expect(upstream.headers.host).toBe('api.example');
  });

  test('when the client sends a Bearer token, its own principal header and forwarding claims, then none of them reach the service', () => {
    const headers = { authorization: 'Bearer secret', [PRINCIPAL_HEADER]: 'forged', 'x-forwarded-for': '10.0.0.1', connection: 'close' };

    const upstream = rewriteForUpstream('GET', '/articles', headers, admission(), context);

    expect(upstream.headers.authorization).toBeUndefined();
    expect(upstream.headers[PRINCIPAL_HEADER]).not.toBe('forged');
    expect(upstream.headers['x-forwarded-for']).toBe('203.0.113.7');
    expect(upstream.headers.connection).toBeUndefined();
    // The client's headers are copied, not edited.
    expect(headers.authorization).toBe('Bearer secret');
  });

  test('when the body was rewritten, then its new length is sent and the chunked framing dropped', () => {
    const upstream = rewriteForUpstream(
      'POST',
      '/articles',
      { 'content-length': '60', 'transfer-encoding': 'chunked', 'content-type': 'application/json' },
      admission({ body: Buffer.from('{"title":"Hi"}') }),
      context,
    );

    expect(upstream.headers['content-length']).toBe('14');
    expect(upstream.headers['transfer-encoding']).toBeUndefined();
    expect(upstream.body!.toString()).toBe('{"title":"Hi"}');
  });

  test('when the route passes HTTP Basic on, then Authorization stays', () => {
    const upstream = rewriteForUpstream(
      'PUT',
      '/users/me/password',
      { authorization: 'Basic abc' },
      admission({ keepAuthorization: true }),
      context,
    );

    expect(upstream.headers.authorization).toBe('Basic abc');
  });
});
