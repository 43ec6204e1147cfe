import type { IncomingHttpHeaders } from 'node:http';
import { forwardHeaders } from '../src/forward-headers';

const base = { principal: 'signed', requestId: 'req-1', keepAuthorization: false };

describe('forwardHeaders', () => {
  test('drops identity, hop-by-hop and forwarding headers, and sets the gateway own ones', () => {
    const headers: IncomingHttpHeaders = {
      host: 'api.example',
      'content-type': 'application/json',
      authorization: 'Bearer t',
      'x-restgate-principal': 'forged',
      'x-user-id': '1',
      'x-principal': 'admin',
      'x-auth-user': 'root',
      'remote-user': 'root',
      'x-forwarded-for': '10.0.0.1',
      forwarded: 'for=10.0.0.1',
      connection: 'keep-alive, x-secret-hop',
      'x-secret-hop': 'x',
      'transfer-encoding': 'chunked',
      expect: '100-continue',
      'x-request-id': 'client',
      accept: 'application/json',
    };

    const forwarded = forwardHeaders(headers, { ...base, contentLength: 12, clientAddress: '127.0.0.1' });

    expect(forwarded).toEqual({
      host: 'api.example',
      'content-type': 'application/json',
      'content-length': '12',
      'x-forwarded-for': '127.0.0.1',
      'x-restgate-principal': 'signed',
      'x-request-id': 'req-1',
      accept: 'application/json',
    });
    expect(headers['x-restgate-principal']).toBe('forged');
    expect(headers.authorization).toBe('Bearer t');
  });

  test('keeps Authorization when asked, and never drops end-to-end headers a client lists in Connection', () => {
    const headers: IncomingHttpHeaders = {
      host: 'h',
      authorization: 'Basic x',
      connection: 'host, content-type',
      'content-type': 'application/json',
    };

    const forwarded = forwardHeaders(headers, { ...base, keepAuthorization: true });

    expect(forwarded).toMatchObject({ host: 'h', authorization: 'Basic x', 'content-type': 'application/json' });
    expect(forwarded.connection).toBeUndefined();
  });
});
