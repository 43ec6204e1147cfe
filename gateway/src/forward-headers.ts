import type { IncomingHttpHeaders } from 'node:http';
import { PRINCIPAL_HEADER } from '@restgate/shared';
import { REQUEST_ID_HEADER } from '@restgate/shared/http';

/** Hop-by-hop headers (RFC 9110 §7.6.1), plus `expect`: the gateway has already read the body. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'proxy-authorization',
]);

/**
 * Identity headers a client might send hoping a service trusts them. Only the gateway's signed
 * principal header speaks for the caller; anything that looks like a rival is dropped.
 */
const IDENTITY = /^(x-restgate-|x-user|x-principal|x-auth|x-remote-user|x-forwarded-user|remote-user|x-authenticated)/;

/** The gateway is the edge: what a client claims about addresses is replaced, not appended to. */
const FORWARDING = /^(forwarded$|x-forwarded-|x-real-ip$)/;

/** Never dropped because a client listed them in `Connection`. */
const END_TO_END = new Set(['host', 'content-type', 'content-length']);

export interface ForwardHeaderOptions {
  /** The signed principal (signPrincipal). */
  principal: string;
  requestId: string;
  /** Keep `Authorization` (HTTP Basic on basic routes, the provider token on provider routes). */
  keepAuthorization: boolean;
  /** Length of the body the gateway re-sends, when it read one. */
  contentLength?: number;
  clientAddress?: string;
}

/**
 * The headers the upstream service receives, from the incoming ones (left as they are): built
 * from the headers kept rather than copied and then deleted from, which would leave undici a
 * slow dictionary-mode object to read on every request.
 */
export function forwardHeaders(headers: IncomingHttpHeaders, options: ForwardHeaderOptions): IncomingHttpHeaders {
  const listed = headers.connection
    ? headers.connection
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name && !END_TO_END.has(name))
    : [];
  const forwarded: IncomingHttpHeaders = {};
  for (const name of Object.keys(headers)) {
    if (HOP_BY_HOP.has(name) || IDENTITY.test(name) || FORWARDING.test(name) || listed.includes(name)) continue;
    if (name === 'authorization' && !options.keepAuthorization) continue;
    forwarded[name] = headers[name];
  }
  if (options.contentLength !== undefined) forwarded['content-length'] = String(options.contentLength);
  if (options.clientAddress) forwarded['x-forwarded-for'] = options.clientAddress;
  forwarded[PRINCIPAL_HEADER] = options.principal;
  forwarded[REQUEST_ID_HEADER] = options.requestId;
  return forwarded;
}
