import { aGitHubAccount, type FakeProvider, type GitHubAccount } from '../../services/identity/test/support/fake-providers';
import { aUser, signIn, signUp } from '../support/actors';
import { startStackWithGitHub, type GitHubStack } from '../support/github-stack';
import { client, type Client, type Reply } from '../support/http';
import { mailedLinks } from '../support/outbox';
import type { TestStack } from '../support/stack';

/**
 * `Cache-Control: no-store` as a client of the gateway sees it, on every answer that carries a
 * token (sign-in, refresh, social sign-in) or answers for the token in its URL (the mailed links,
 * as JSON and as the page a browser gets): no browser history, back button or shared cache keeps them.
 */
let withGitHub: GitHubStack;
let stack: TestStack;
let api: Client;
let github: FakeProvider<GitHubAccount>;

beforeAll(async () => {
  withGitHub = await startStackWithGitHub();
  ({ stack, github } = withGitHub);
  api = client(stack.url);
}, 120_000);

afterAll(() => withGitHub?.stop());

const cacheControl = (reply: Reply) => ({ status: reply.status, cacheControl: reply.headers.get('cache-control') });
const pathOf = (link: string) => new URL(link).pathname;

describe('Cache-Control: no-store through the gateway', () => {
  test('when a user signs in, refreshes and signs in with GitHub, then every answer with tokens says no-store', async () => {
    const user = aUser();
    await signUp(api, stack, user);

    const session = await signIn(api, stack, user);
    const refreshed = await api.post('/auth/refresh', { form: { refreshToken: session.body.refreshToken } });
    const social = await api.post('/auth/github', { bearer: github.issueToken(aGitHubAccount()) });

    expect([session, refreshed, social].map(cacheControl)).toEqual([
      { status: 201, cacheControl: 'no-store' },
      { status: 201, cacheControl: 'no-store' },
      { status: 201, cacheControl: 'no-store' },
    ]);
  });

  test('when the mailed reset and verification links are opened as JSON and as a page, then every answer says no-store', async () => {
    const user = aUser();
    await signUp(api, stack, user);
    await api.post('/password-resets', { form: { email: user.email, access_token: stack.secrets.MASTER_KEY } });
    const [verification] = await mailedLinks(stack.outboxDir, user.email, 'email-verifications');
    const [reset] = await mailedLinks(stack.outboxDir, user.email, 'password-resets');

    const replies = [];
    for (const link of [reset!, verification!]) {
      replies.push(await api.get(pathOf(link)));
      replies.push(await api.get(pathOf(link), { headers: { Accept: 'text/html' } }));
    }

    expect(replies.map(cacheControl)).toEqual(Array(4).fill({ status: 200, cacheControl: 'no-store' }));
  });
});
