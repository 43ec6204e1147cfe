/**
 * Fake Facebook, GitHub and Google for social sign-in tests: real HTTP servers on loopback (port 0)
 * that answer with each provider's documented response and error shapes. A test registers an
 * account, gets a fresh access token for it, and points the service's *_API_URL at the fake.
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomEmail, uniqueSuffix } from '@restgate/shared/testing';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The request body as text (empty for none). */
  body: string;
}

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Issued<A> {
  account: A;
  delayMs: number;
  /** The OAuth app (client id) the token was issued to, where the provider checks it. */
  app?: string;
}

export interface FakeProvider<A> {
  /** The base URL to configure (Facebook's includes its version path, as the real one does). */
  url: string;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** A new access token for `account`; `delayMs` holds each answer back that long; `app`: the client id it is issued to. */
  issueToken(account: A, options?: { delayMs?: number; app?: string }): string;
  /** Until cleared with null, every request is answered with this status (an outage). */
  setOutage(status: number | null): void;
  close(): Promise<void>;
}

export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility?: 'public' | 'private' | null;
}

export interface GitHubAccount {
  id: number;
  login: string;
  name: string | null;
  avatarUrl: string;
  /** `forbidden`: the token lacks the user:email scope. */
  emails: GitHubEmail[] | 'forbidden';
}

export interface FacebookAccount {
  id: string;
  name: string;
  /** Facebook leaves `email` out when the person has no confirmed address or did not grant it. */
  email?: string;
  pictureUrl: string;
  isSilhouette: boolean;
  /** The app the token is issued to. */
  appId: string;
}

export interface GoogleAccount {
  sub: string;
  name: string;
  picture: string;
  email?: string;
  emailVerified: boolean;
  /** The OAuth client the token is issued to. */
  clientId: string;
}

export const FACEBOOK_VERSION = 'v24.0';

/** A random number as a string of `length` digits (Facebook and Google ids are such strings). */
function someDigits(length: number): string {
  return `${randomInt(1, 10)}${Array.from(randomBytes(length - 1), (byte) => byte % 10).join('')}`;
}

export function aGitHubAccount(overrides: Partial<GitHubAccount> = {}): GitHubAccount {
  const login = `octo-${uniqueSuffix()}`;
  return {
    id: randomInt(1, 2 ** 31),
    login,
    name: `Octo ${login}`,
    avatarUrl: `https://avatars.githubusercontent.com/u/${randomInt(1, 2 ** 31)}?v=4`,
    emails: [{ email: randomEmail('gh'), primary: true, verified: true, visibility: 'private' }],
    ...overrides,
  };
}

export function aFacebookAccount(appId: string, overrides: Partial<FacebookAccount> = {}): FacebookAccount {
  const id = someDigits(15);
  return {
    id,
    name: `Face ${uniqueSuffix()}`,
    email: randomEmail('fb'),
    pictureUrl: `https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=${id}&height=50&width=50`,
    isSilhouette: false,
    appId,
    ...overrides,
  };
}

export function aGoogleAccount(clientId: string, overrides: Partial<GoogleAccount> = {}): GoogleAccount {
  return {
    sub: someDigits(21),
    name: `Goo ${uniqueSuffix()}`,
    picture: `https://lh3.googleusercontent.com/a/${uniqueSuffix()}=s96-c`,
    email: randomEmail('google'),
    emailVerified: true,
    clientId,
    ...overrides,
  };
}

/** A base URL where nothing listens: a provider that is down. */
export async function unreachableUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

type Route<A> = (req: RecordedRequest, tokens: Map<string, Issued<A>>) => Reply;

async function startFake<A>(basePath: string, route: Route<A>): Promise<FakeProvider<A>> {
  const tokens = new Map<string, Issued<A>>();
  const requests: RecordedRequest[] = [];
  let outage: number | null = null;

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) || '/' : url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
    };
    requests.push(recorded);
    const reply = outage !== null ? { status: outage, body: { message: 'Service Unavailable' } } : route(recorded, tokens);
    const delayMs = Math.max(0, ...[...tokens.entries()].filter(([token]) => mentions(recorded, token)).map(([, t]) => t.delayMs));
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    };
    if (delayMs > 0) setTimeout(send, delayMs).unref();
    else send();
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    requests,
    issueToken(account, options = {}) {
      const token = `tok_${randomBytes(24).toString('base64url')}`;
      tokens.set(token, { account, delayMs: options.delayMs ?? 0, app: options.app });
      return token;
    },
    setOutage(status) {
      outage = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function mentions(req: RecordedRequest, token: string): boolean {
  return req.headers.authorization?.includes(token) || [...req.query.values()].includes(token) || req.body.includes(token);
}

function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^(?:Bearer|token)\s+(\S+)$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

/**
 * GitHub REST API: `GET /user`, `GET /user/emails`, and the OAuth apps' token check `POST
 * /applications/{client_id}/token` (HTTP Basic with the app's client id and secret, the token in
 * a JSON body: 200 with the app when the token was issued to it, else 404). The user token only
 * counts in the Authorization header; a request without a User-Agent is refused with 403, as
 * GitHub does. `apps`: client id → secret.
 */
export function startFakeGitHub(apps: Record<string, string> = {}): Promise<FakeProvider<GitHubAccount>> {
  const docs = 'https://docs.github.com/rest';
  return startFake<GitHubAccount>('', (req, tokens) => {
    if (!req.headers['user-agent']) {
      return {
        status: 403,
        body: { message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header.' },
      };
    }
    const check = /^\/applications\/([^/]+)\/token$/.exec(req.path);
    if (check && req.method === 'POST') {
      const clientId = decodeURIComponent(check[1]!);
      if (req.headers.authorization !== `Basic ${Buffer.from(`${clientId}:${apps[clientId] ?? ''}`).toString('base64')}` || !apps[clientId]) {
        return { status: 401, body: { message: 'Bad credentials', documentation_url: docs, status: '401' } };
      }
      let token: unknown;
      try {
        token = (JSON.parse(req.body) as { access_token?: unknown }).access_token;
      } catch {
        return { status: 400, body: { message: 'Problems parsing JSON', documentation_url: docs, status: '400' } };
      }
      const issued = typeof token === 'string' ? tokens.get(token) : undefined;
      if (!issued || issued.app !== clientId) return { status: 404, body: { message: 'Not Found', documentation_url: docs, status: '404' } };
      return { status: 200, body: { id: 1, token, app: { client_id: clientId, name: 'restgate test', url: 'http://127.0.0.1' }, scopes: ['user:email'] } };
    }
    const token = bearerToken(req.headers);
    const account = token === undefined ? undefined : tokens.get(token)?.account;
    if (!token) return { status: 401, body: { message: 'Requires authentication', documentation_url: docs, status: '401' } };
    if (!account) return { status: 401, body: { message: 'Bad credentials', documentation_url: docs, status: '401' } };
    if (req.path === '/user') {
      return {
        status: 200,
        body: {
          login: account.login,
          id: account.id,
          node_id: `MDQ6VXNlcj${account.id}`,
          avatar_url: account.avatarUrl,
          type: 'User',
          name: account.name,
          email: null,
          created_at: '2011-01-25T18:44:36Z',
        },
      };
    }
    if (req.path === '/user/emails') {
      if (account.emails === 'forbidden') return { status: 404, body: { message: 'Not Found', documentation_url: docs, status: '404' } };
      return { status: 200, body: account.emails.map((e) => ({ visibility: null, ...e })) };
    }
    return { status: 404, body: { message: 'Not Found', documentation_url: docs, status: '404' } };
  });
}

/**
 * Facebook Graph API under its version path: `GET /me?fields=…` and `GET /debug_token`. Knows the
 * apps' secrets, so it checks `appsecret_proof` and app access tokens the way Graph does.
 */
export function startFakeFacebook(apps: Record<string, string>): Promise<FakeProvider<FacebookAccount>> {
  const graphError = (status: number, message: string, code: number, type = 'OAuthException'): Reply => ({
    status,
    body: { error: { message, type, code, fbtrace_id: `A${uniqueSuffix()}` } },
  });
  return startFake<FacebookAccount>(`/${FACEBOOK_VERSION}`, (req, tokens) => {
    if (req.path === '/debug_token') {
      const [appId, secret] = (req.query.get('access_token') ?? '').split('|');
      if (!appId || apps[appId] === undefined || apps[appId] !== secret)
        return graphError(400, 'Invalid OAuth access token signature.', 190);
      const account = tokens.get(req.query.get('input_token') ?? '')?.account;
      if (!account)
        return {
          status: 200,
          body: { data: { error: { code: 190, message: 'Invalid OAuth access token.' }, is_valid: false, scopes: [] } },
        };
      const now = Math.floor(Date.now() / 1000);
      return {
        status: 200,
        body: {
          data: {
            app_id: account.appId,
            type: 'USER',
            application: `App ${account.appId}`,
            data_access_expires_at: now + 7_776_000,
            expires_at: now + 5_184_000,
            is_valid: true,
            scopes: ['email', 'public_profile'],
            user_id: account.id,
          },
        },
      };
    }
    const token = req.query.get('access_token') ?? bearerToken(req.headers) ?? '';
    const account = tokens.get(token)?.account;
    if (!account) return graphError(400, 'Invalid OAuth access token - Cannot parse access token', 190);
    const proof = req.query.get('appsecret_proof');
    const secret = apps[account.appId];
    if (proof !== null && (secret === undefined || proof !== createHmac('sha256', secret).update(token).digest('hex'))) {
      return graphError(400, 'Invalid appsecret_proof provided in the API argument', 100, 'GraphMethodException');
    }
    if (req.path !== '/me') return graphError(400, 'Unknown path components', 2500);
    const fields = (req.query.get('fields') ?? 'id,name').split(',');
    const all: Record<string, unknown> = {
      id: account.id,
      name: account.name,
      email: account.email,
      picture: { data: { height: 50, is_silhouette: account.isSilhouette, url: account.pictureUrl, width: 50 } },
    };
    return { status: 200, body: Object.fromEntries(fields.filter((f) => all[f] !== undefined).map((f) => [f, all[f]])) };
  });
}

/** Google OAuth 2.0: `GET /oauth2/v3/userinfo` (Bearer) and `GET /oauth2/v3/tokeninfo?access_token=`. */
export function startFakeGoogle(): Promise<FakeProvider<GoogleAccount>> {
  return startFake<GoogleAccount>('', (req, tokens) => {
    if (req.path === '/oauth2/v3/tokeninfo') {
      const account = tokens.get(req.query.get('access_token') ?? '')?.account;
      if (!account) return { status: 400, body: { error: 'invalid_token', error_description: 'Invalid Value' } };
      return {
        status: 200,
        body: {
          azp: account.clientId,
          aud: account.clientId,
          sub: account.sub,
          scope: 'openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile',
          exp: String(Math.floor(Date.now() / 1000) + 3599),
          expires_in: '3599',
          ...(account.email ? { email: account.email, email_verified: String(account.emailVerified) } : {}),
          access_type: 'online',
        },
      };
    }
    if (req.path === '/oauth2/v3/userinfo') {
      const token = bearerToken(req.headers);
      const account = token === undefined ? undefined : tokens.get(token)?.account;
      if (!account) {
        return {
          status: 401,
          body: { error: 'invalid_request', error_description: 'Invalid Credentials' },
          headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
        };
      }
      return {
        status: 200,
        body: {
          sub: account.sub,
          name: account.name,
          given_name: account.name.split(' ')[0],
          picture: account.picture,
          ...(account.email ? { email: account.email, email_verified: account.emailVerified } : {}),
          locale: 'en',
        },
      };
    }
    return { status: 404, body: { error: 'not_found' } };
  });
}
