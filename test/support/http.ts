/**
 * A small HTTP client for black-box tests: form or JSON bodies, query, Basic or Bearer, and the
 * reply with its body parsed when it is JSON. While a recorder is set for its base URL's origin
 * (startTestStack sets one per stack), every exchange is recorded, to be checked against the
 * OpenAPI document when the stack stops.
 */
export interface CallOptions {
  /** A form body: an object (encoded as the README's `curl -d` lines do) or a raw encoded string. */
  form?: Record<string, string> | string;
  json?: unknown;
  /** Any other body, sent as is with its content type. */
  raw?: { contentType: string; body: string };
  query?: Record<string, string>;
  headers?: Record<string, string>;
  basic?: { user: string; password: string };
  bearer?: string;
}

export interface Reply {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  body: any;
  text: string;
}

export interface Client {
  request(method: string, path: string, options?: CallOptions): Promise<Reply>;
  get(path: string, options?: CallOptions): Promise<Reply>;
  post(path: string, options?: CallOptions): Promise<Reply>;
}

/** One request and its response, as the response check needs it. */
export interface Exchange {
  /** The jest test that made the request (or the hook, when outside a test). */
  test: string;
  method: string;
  /** The request path, without the query string. */
  path: string;
  status: number;
  contentType: string | undefined;
  /** The parsed JSON body, or the text when it is not JSON, or undefined when empty. */
  body: unknown;
}

const recorders = new Map<string, Exchange[]>();

/** Starts recording the exchanges of every client whose base URL has the same origin; returns the (live) list. */
export function recordExchanges(baseUrl: string): Exchange[] {
  const exchanges: Exchange[] = [];
  recorders.set(new URL(baseUrl).origin, exchanges);
  return exchanges;
}

export function stopRecording(baseUrl: string): void {
  recorders.delete(new URL(baseUrl).origin);
}

function currentTestName(): string {
  // `expect` is jest's global; the client is only used under jest, but stays usable without it.
  const name = typeof expect === 'undefined' ? undefined : expect.getState().currentTestName;
  return name ?? '(outside a test: a beforeAll or afterAll hook)';
}

export function client(baseUrl: string): Client {
  const request = async (method: string, path: string, options: CallOptions = {}): Promise<Reply> => {
    const url = new URL(path, baseUrl);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.append(key, value);
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = typeof options.form === 'string' ? options.form : new URLSearchParams(options.form).toString();
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.raw) {
      headers['content-type'] = options.raw.contentType;
      body = options.raw.body;
    }
    if (options.basic) {
      headers.authorization = `Basic ${Buffer.from(`${options.basic.user}:${options.basic.password}`).toString('base64')}`;
    }
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    if (/[/+]json\s*(?:;|$)/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    recorders.get(url.origin)?.push({
      test: currentTestName(),
      method: method.toUpperCase(),
      path: url.pathname,
      status: res.status,
      contentType: res.headers.get('content-type') ?? undefined,
      body: parsed ?? (text || undefined),
    });
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, options) => request('POST', path, options),
  };
}
