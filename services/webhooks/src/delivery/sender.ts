import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, request } from 'undici';
import { ipLiteral, isPublicAddress } from '../domain/addresses';
import { parseRetryAfter, type Attempt } from '../domain/outcome';

/** How much of an answer's body the log keeps; the rest is never read. */
export const RESPONSE_KEPT_BYTES = 4_096;

export interface SenderOptions {
  /** The whole attempt: connecting, the answer's headers and the part of its body that is kept. */
  timeoutMs: number;
  /** Loopback, private and link-local addresses may be reached (local development, tests). */
  allowPrivateNetworks: boolean;
}

export interface Sender {
  /** POSTs `body` to `url` once: never throws, never follows a redirect. */
  send(url: string, headers: Record<string, string>, body: string): Promise<Attempt>;
  close(): Promise<void>;
}

const refusal = (host: string, address: string) =>
  Object.assign(new Error(`address not allowed: ${host} is ${address}, not a public address`), { code: 'EADDRNOTALLOWED' });

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `dns.lookup`, refusing a name whose addresses include one that is not public. It runs inside the
 * connection (the socket's `lookup`), so the address checked is the address connected to: a name
 * that resolved to a public address when the endpoint was registered and to 127.0.0.1 now (DNS
 * rebinding) is refused all the same.
 */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) return callback(refusal(hostname, refused.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

/** Reads at most RESPONSE_KEPT_BYTES of a body, then drops the rest (a huge answer costs nothing). */
async function keptPart(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_KEPT_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_KEPT_BYTES).toString('utf8');
}

function errorText(err: unknown): string {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const inner = e.cause ?? e;
  if (inner.message?.startsWith('address not allowed')) return inner.message;
  if (
    e.name === 'TimeoutError' ||
    e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e.code === 'UND_ERR_BODY_TIMEOUT' ||
    e.code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return 'timeout';
  return inner.code ?? e.code ?? inner.message ?? 'request failed';
}

export function createSender({ timeoutMs, allowPrivateNetworks }: SenderOptions): Sender {
  const agent = new Agent({
    connect: { timeout: timeoutMs, ...(allowPrivateNetworks ? {} : { lookup: guardedLookup }) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
  });
  return {
    async send(url, headers, body) {
      const at = new Date();
      const started = performance.now();
      const done = (fields: Omit<Attempt, 'at' | 'durationMs'>): Attempt => ({
        at,
        durationMs: Math.round(performance.now() - started),
        ...fields,
      });
      const target = new URL(url);
      const literal = ipLiteral(target.hostname);
      // An IP in the URL is connected to without a lookup: checked here instead.
      if (!allowPrivateNetworks && literal && !isPublicAddress(literal)) return done({ error: refusal(target.hostname, literal).message });
      try {
        const res = await request(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'restgate-webhooks', ...headers },
          body,
          dispatcher: agent,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const response = await keptPart(res.body);
        const retryAfter = res.headers['retry-after'];
        const retryAfterMs = parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, Date.now());
        const redirect = res.statusCode >= 300 && res.statusCode < 400;
        return done({
          status: res.statusCode,
          response,
          ...(redirect ? { error: 'redirect not followed' } : {}),
          ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        });
      } catch (err) {
        return done({ error: errorText(err) });
      }
    },
    close: () => agent.close(),
  };
}
