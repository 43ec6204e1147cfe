import { ConfigError, loadConfig } from '@restgate/shared';
import { identityConfigSchema } from '../src/config';

const minimal = {
  MONGODB_URL: 'mongodb://127.0.0.1:27017',
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
  REDIS_URL: 'redis://127.0.0.1:6379',
  PRINCIPAL_SECRET: 'p'.repeat(32),
  JWT_SECRET: 'j'.repeat(32),
};

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(identityConfigSchema, env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

describe('identity config: password resets', () => {
  test('when only the required keys are set, then resets last an hour, link to the local gateway and allow no other origin', () => {
    expect(loadConfig(identityConfigSchema, minimal)).toMatchObject({
      RESET_LINK_ORIGINS: [],
      RESET_DEFAULT_PAGE: 'http://127.0.0.1:9000/password-resets',
      RESET_TOKEN_TTL_SECONDS: 3600,
      OUTBOX_POLL_MS: 2000,
      TOPOLOGY_PREFIX: '',
    });
  });

  test('when AMQP_URL is missing or not an AMQP URL, then the start fails naming it', () => {
    const { AMQP_URL: _omitted, ...withoutBroker } = minimal;

    expect(problemsOf(withoutBroker).join('\n')).toContain('AMQP_URL');
    expect(problemsOf({ ...minimal, AMQP_URL: 'http://127.0.0.1:5672' }).join('\n')).toContain('AMQP_URL');
  });

  test('when AMQP_URL lists brokers, then it is accepted; a bad entry fails the start naming the key and the entry, not its password', () => {
    const nodes = 'amqp://u:p@rabbit-1:5672,amqp://u:p@rabbit-2:5672';

    expect(loadConfig(identityConfigSchema, { ...minimal, AMQP_URL: nodes }).AMQP_URL).toBe(nodes);
    const problems = problemsOf({ ...minimal, AMQP_URL: 'amqp://u:p@rabbit-1:5672,amqp//u:hunter2@rabbit-2:5672' }).join('\n');
    expect(problems).toMatch(/AMQP_URL: AMQP_URL has entries \(2 of 2\)/);
    expect(problems).not.toContain('hunter2');
  });

  test('when RESET_LINK_ORIGINS lists origins, then they are normalised the way browsers write them, without repeats', () => {
    const config = loadConfig(identityConfigSchema, {
      ...minimal,
      RESET_LINK_ORIGINS: ' https://App.Example.com , http://localhost:3000/, https://app.example.com:443',
    });

    expect(config.RESET_LINK_ORIGINS).toEqual(['https://app.example.com', 'http://localhost:3000']);
  });

  test.each([
    ['a path', 'https://app.example.com/reset'],
    ['a query', 'https://app.example.com?x=1'],
    ['credentials', 'https://user:pw@app.example.com'],
    ['another scheme', 'javascript://app.example.com'],
    ['no URL at all', 'app.example.com'],
  ])('when an origin has %s, then the start fails naming RESET_LINK_ORIGINS', (_label, origin) => {
    expect(problemsOf({ ...minimal, RESET_LINK_ORIGINS: `https://ok.example.com,${origin}` }).join('\n')).toContain('RESET_LINK_ORIGINS');
  });

  test.each([
    ['RESET_TOKEN_TTL_SECONDS', '59'],
    ['RESET_DEFAULT_PAGE', 'ftp://files.example.com/reset'],
    ['OUTBOX_POLL_MS', '0'],
    ['TOPOLOGY_PREFIX', 'has space'],
  ])('when %s is %s, then the start fails naming it', (key, value) => {
    expect(problemsOf({ ...minimal, [key]: value }).join('\n')).toContain(key);
  });
});
