import type Joi from 'joi';
import { socialErrors } from './social-errors';

export interface ProviderReply {
  status: number;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  body: unknown;
}

export interface ProviderRequest {
  label: string;
  url: URL;
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** Default GET. */
  method?: 'GET' | 'POST';
  /** Sent as JSON. */
  json?: unknown;
}

/** `base` + `/path`, keeping any path the base has (`https://graph.facebook.com/v24.0` + `me`). */
export function providerUrl(base: string, path: string, query: Record<string, string> = {}): URL {
  const url = new URL(`${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url;
}

/**
 * Asks a provider for JSON (GET, or POST with a JSON body). Whatever goes wrong on the way becomes a 502 (unreachable) or, once
 * `signal` has fired, a 504; the status is the caller's to judge. Errors never carry the URL or the
 * fetch error, either of which may contain the token. Redirects are refused: a token must not
 * follow one to another host.
 */
export async function getJson(request: ProviderRequest): Promise<ProviderReply> {
  try {
    const res = await fetch(request.url, {
      method: request.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(request.json === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      body: request.json === undefined ? undefined : JSON.stringify(request.json),
      signal: request.signal,
      redirect: 'error',
    });
    const text = await res.text();
    return { status: res.status, body: parseJson(text) };
  } catch (err) {
    if (request.signal.aborted) throw socialErrors.timeout(request.label);
    throw socialErrors.unreachable(request.label, networkReason(err));
  }
}

function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** A short, token-free reason for the log: the system error code (ECONNREFUSED…) when there is one. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' ? cause.code : 'request failed';
}

/** Throws a 502 unless the status is 2xx; `rejects` are the statuses that mean "bad token" (401). */
export function assertOk(reply: ProviderReply, label: string, rejects: number[]): void {
  if (rejects.includes(reply.status)) throw socialErrors.tokenRejected(label);
  if (reply.status < 200 || reply.status > 299) throw socialErrors.failed(label, `answered HTTP ${reply.status}`);
}

/** The body in the shape `schema` describes (converted), or a 502: we never guess at a provider's answer. */
export function parseReply<T>(schema: Joi.Schema<T>, reply: ProviderReply, label: string, what: string): T {
  const { value, error } = schema.validate(reply.body, { convert: true, allowUnknown: true, stripUnknown: true });
  if (error || value === undefined) throw socialErrors.failed(label, `unexpected ${what}: ${error?.message ?? 'no body'}`);
  return value;
}
