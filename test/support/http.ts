/**
 * A small HTTP client for black-box tests: form or JSON bodies, query, Basic or Bearer, and the
 * reply with its body parsed when it is JSON.
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
    if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, options) => request('POST', path, options),
  };
}
