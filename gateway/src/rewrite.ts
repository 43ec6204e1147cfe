import type { IncomingHttpHeaders } from 'node:http';
import { signPrincipal } from '@restgate/shared';
import { CLIENT_ADDRESS_HEADER, signClientAddress } from '@restgate/shared/http';
import type { Admission } from './decide';
import { forwardHeaders } from './forward-headers';

/** The request the gateway sends to the service. */
export interface UpstreamRequest {
  method: string;
  /** Path and query, as the client sent them but for `access_token`: the path the principal is signed for. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
}

export interface RewriteContext {
  /** PRINCIPAL_SECRET: signs the principal and the client address. */
  secret: string;
  requestId: string;
  /** The client's address as the gateway saw it (a trusted proxy's X-Forwarded-For, or the socket's). */
  clientAddress: string;
}

/**
 * The client's request rewritten for the service: the credential out (query, body, any
 * Authorization the route doesn't pass on), the signed principal, the signed client address and
 * the request id in, hop-by-hop and identity headers a client may not set dropped. The client's
 * headers are copied, never edited.
 */
export function rewriteForUpstream(
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  admission: Admission,
  context: RewriteContext,
): UpstreamRequest {
  const forwarded = forwardHeaders(headers, {
    principal: signPrincipal(admission.principal, context.secret, method, path),
    requestId: context.requestId,
    keepAuthorization: admission.keepAuthorization,
    contentLength: admission.body?.length,
    clientAddress: context.clientAddress,
  });
  // The service's own limits (the password back-off) key on the address the gateway saw.
  forwarded[CLIENT_ADDRESS_HEADER] = signClientAddress(context.clientAddress, context.secret, method, path);
  return { method, url: admission.query ? `${path}?${admission.query}` : path, headers: forwarded, body: admission.body };
}
