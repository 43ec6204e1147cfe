import { ConfigError, loadConfig, type Logger } from '@restgate/shared';
import { identityConfigSchema, type IdentityConfig } from '../src/config';
import { createSocialLogin, socialAppProblems } from '../src/social/social-login';

const minimal = {
  MONGODB_URL: 'mongodb://127.0.0.1:27017',
  AMQP_URL: 'amqp://127.0.0.1:5672',
  REDIS_URL: 'redis://127.0.0.1:6379',
  PRINCIPAL_SECRET: 'p'.repeat(32),
  JWT_SECRET: 'j'.repeat(32),
};

/** Every provider on, each bound to its app (client ids and secrets). */
const EVERY_PROVIDER_BOUND = {
  SOCIAL_PROVIDERS: 'facebook,github,google',
  FACEBOOK_APP_ID: '1',
  FACEBOOK_APP_SECRET: 's',
  GITHUB_CLIENT_ID: 'g',
  GITHUB_CLIENT_SECRET: 'gs',
  GOOGLE_CLIENT_ID: 'c',
};

const load = (env: Record<string, string>): IdentityConfig => loadConfig(identityConfigSchema, { ...minimal, ...env });

const problemsOf = (env: Record<string, string>): string => {
  try {
    load(env);
    return '';
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.join('\n');
    throw err;
  }
};

describe('social sign-in config', () => {
  test("by default no provider is enabled, with a 5 s deadline and the providers' public base URLs", () => {
    expect(load({})).toMatchObject({
      SOCIAL_PROVIDERS: [],
      SOCIAL_TIMEOUT_MS: 5_000,
      FACEBOOK_API_URL: 'https://graph.facebook.com/v24.0',
      GITHUB_API_URL: 'https://api.github.com',
      GOOGLE_API_URL: 'https://www.googleapis.com',
      GOOGLE_CLIENT_ID: [],
    });
    expect(load({ SOCIAL_PROVIDERS: '', FACEBOOK_APP_ID: '', FACEBOOK_APP_SECRET: '' }).SOCIAL_PROVIDERS).toEqual([]);
  });

  test('SOCIAL_PROVIDERS and GOOGLE_CLIENT_ID are comma lists, trimmed and without repeats', () => {
    const config = load({ SOCIAL_PROVIDERS: ' GitHub, google ,github,', GOOGLE_CLIENT_ID: 'web.apps, ios.apps' });

    expect(config.SOCIAL_PROVIDERS).toEqual(['github', 'google']);
    expect(config.GOOGLE_CLIENT_ID).toEqual(['web.apps', 'ios.apps']);
  });

  test.each([
    [{ SOCIAL_PROVIDERS: 'github,twitter' }, /SOCIAL_PROVIDERS.*twitter/],
    [{ FACEBOOK_APP_ID: '123' }, /FACEBOOK_APP_SECRET.*required/],
    [{ FACEBOOK_APP_SECRET: 'secret' }, /FACEBOOK_APP_SECRET needs FACEBOOK_APP_ID/],
    [{ GITHUB_CLIENT_ID: 'Iv1.x' }, /GITHUB_CLIENT_SECRET.*required/],
    [{ GITHUB_CLIENT_SECRET: 'secret' }, /GITHUB_CLIENT_SECRET needs GITHUB_CLIENT_ID/],
    [{ GITHUB_API_URL: 'ftp://example.com' }, /GITHUB_API_URL/],
    [{ SOCIAL_TIMEOUT_MS: '0' }, /SOCIAL_TIMEOUT_MS/],
  ])('%j is refused with the key named', (env, message) => {
    expect(problemsOf(env)).toMatch(message);
  });

  test("the enabled providers get adapters, and those that would accept any app's token are warned about", () => {
    const warnings: string[] = [];
    const logger = { warn: (msg: string) => warnings.push(msg) } as unknown as Logger;

    const social = createSocialLogin(load({ SOCIAL_PROVIDERS: 'facebook,github,google', SOCIAL_TIMEOUT_MS: '1234' }), logger);

    expect(social.providers.map((p) => p.name)).toEqual(['facebook', 'github', 'google']);
    expect(social.timeoutMs).toBe(1234);
    expect(warnings).toEqual([
      expect.stringContaining('FACEBOOK_APP_ID'),
      expect.stringContaining('GITHUB_CLIENT_ID'),
      expect.stringContaining('GOOGLE_CLIENT_ID'),
    ]);
  });

  test('with app credentials and a client id, there is nothing to warn about', () => {
    const warnings: string[] = [];
    const logger = { warn: (msg: string) => warnings.push(msg) } as unknown as Logger;

    createSocialLogin(load(EVERY_PROVIDER_BOUND), logger);

    expect(warnings).toEqual([]);
  });

  test('in production, each enabled provider without its app binding is a problem naming the keys to set (start refuses), and nothing else is', () => {
    const problems = socialAppProblems(load({ NODE_ENV: 'production', SOCIAL_PROVIDERS: 'facebook,github,google' }));
    const bound = socialAppProblems(load({ NODE_ENV: 'production', ...EVERY_PROVIDER_BOUND }));
    const disabled = socialAppProblems(load({ NODE_ENV: 'production' }));

    expect(problems).toEqual([
      expect.stringMatching(/^SOCIAL_PROVIDERS enables facebook without FACEBOOK_APP_ID and FACEBOOK_APP_SECRET: .*any Facebook app/),
      expect.stringMatching(/^SOCIAL_PROVIDERS enables github without GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET: .*any GitHub app/),
      expect.stringMatching(/^SOCIAL_PROVIDERS enables google without GOOGLE_CLIENT_ID: .*any Google client/),
    ]);
    expect(bound).toEqual([]);
    expect(disabled).toEqual([]);
  });
});
