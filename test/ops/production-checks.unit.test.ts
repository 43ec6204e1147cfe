import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { assertSafeSettings, findUnsafeSettings, KNOWN_WEAK_SECRETS, UnsafeSettingsError } from '@restgate/shared/testing';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { TEST_JWT_SECRET, TEST_MASTER_KEY } from '../../gateway/test/support/tokens';

const strong = () => randomBytes(32).toString('base64url');

function aConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    NODE_ENV: 'production',
    PORT: 9000,
    MASTER_KEY: strong(),
    JWT_SECRET: strong(),
    PRINCIPAL_SECRET: strong(),
    JWT_ISSUER: 'restgate',
    CORS_ORIGINS: '',
    ...overrides,
  };
}

describe('findUnsafeSettings', () => {
  test('when every secret is long, random and distinct, then there is no problem', () => {
    expect(findUnsafeSettings(aConfig())).toEqual([]);
  });

  test('when a secret is shorter than 32 bytes, then it is named', () => {
    expect(findUnsafeSettings(aConfig({ JWT_SECRET: strong().slice(0, 31) }))).toEqual(['JWT_SECRET is shorter than 32 bytes']);
  });

  test('when a secret has 31 characters but 32 bytes, then its length passes (bytes count, not characters)', () => {
    expect(findUnsafeSettings(aConfig({ PRINCIPAL_SECRET: `${strong().slice(0, 30)}é` }))).toEqual([]);
  });

  test.each([
    ['the shared test principal secret', TEST_PRINCIPAL_SECRET],
    ["the gateway tests' master key", TEST_MASTER_KEY],
    ["the gateway tests' JWT secret", TEST_JWT_SECRET],
  ])('when a secret is %s, then it is refused', (_what, value) => {
    const problems = findUnsafeSettings(aConfig({ MASTER_KEY: value }));

    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^MASTER_KEY (is a published default|looks like a placeholder or test value)/);
  });

  test('when a secret is a known default in other letter case, then it is refused', () => {
    const problems = findUnsafeSettings(aConfig({ METRICS_TOKEN: KNOWN_WEAK_SECRETS.find((s) => s.length >= 32)!.toUpperCase() }));

    expect(problems).toEqual(['METRICS_TOKEN is a published default or example value']);
  });

  test.each([
    ['a placeholder', 'change-me-to-a-long-random-string-for-production'],
    ['an example', 'this-is-an-example-secret-value-for-the-docs-only'],
  ])('when a secret is %s, then it is refused', (_what, value) => {
    expect(findUnsafeSettings(aConfig({ JWT_SECRET: value }))).toEqual([
      'JWT_SECRET looks like a placeholder or test value, not a random secret',
    ]);
  });

  test('when a long secret is visibly not random, then it is refused', () => {
    expect(findUnsafeSettings(aConfig({ PRINCIPAL_SECRET: 'ab'.repeat(20) }))).toEqual([
      'PRINCIPAL_SECRET has too few distinct characters to be random',
    ]);
  });

  test('when two secrets have the same value, then both are named', () => {
    const shared = strong();

    expect(findUnsafeSettings(aConfig({ MASTER_KEY: shared, JWT_SECRET: shared }))).toEqual([
      'MASTER_KEY and JWT_SECRET have the same value; each secret must be different',
    ]);
  });

  test('when an optional secret is empty, then it is not a problem (the feature is off)', () => {
    expect(findUnsafeSettings(aConfig({ METRICS_TOKEN: '', FACEBOOK_APP_SECRET: undefined }))).toEqual([]);
  });

  test('when a URL carries a default password, then the key is named', () => {
    expect(findUnsafeSettings(aConfig({ AMQP_URL: 'amqp://guest:guest@rabbitmq:5672' }))).toEqual(['AMQP_URL uses a default password']);
    expect(findUnsafeSettings(aConfig({ AMQP_URL: `amqp://restgate:${strong()}@rabbitmq:5672` }))).toEqual([]);
  });

  test('when AMQP_URL lists several brokers and any one carries a default password, then the key is named', () => {
    const good = `amqp://restgate:${strong()}@rabbit-1:5672`;

    expect(findUnsafeSettings(aConfig({ AMQP_URL: `${good}, amqp://guest:guest@rabbit-2:5672` }))).toEqual(['AMQP_URL uses a default password']);
    expect(findUnsafeSettings(aConfig({ AMQP_URL: `${good},${good.replace('rabbit-1', 'rabbit-2')}` }))).toEqual([]);
  });

  test('when CORS allows any origin with credentials, then it is refused; either alone is fine', () => {
    expect(findUnsafeSettings(aConfig({ CORS_ORIGINS: 'https://a.example, *', CORS_CREDENTIALS: true }))).toEqual([
      'CORS_ORIGINS allows any origin ("*") together with credentials; list the allowed origins',
    ]);
    expect(findUnsafeSettings(aConfig({ CORS_ORIGINS: '*' }))).toEqual([]);
    expect(findUnsafeSettings(aConfig({ CORS_ORIGINS: 'https://app.example', CORS_CREDENTIALS: 'true' }))).toEqual([]);
  });

  test('when a service adds its own checks, then their problems come after the shared ones', () => {
    const problems = findUnsafeSettings(aConfig({ JWT_SECRET: 'short', BCRYPT_ROUNDS: 4 }), (c) =>
      (c as { BCRYPT_ROUNDS: number }).BCRYPT_ROUNDS < 10 ? ['BCRYPT_ROUNDS is below 10'] : [],
    );

    expect(problems).toEqual(['JWT_SECRET is shorter than 32 bytes', 'BCRYPT_ROUNDS is below 10']);
  });

  test('when problems are found, then no secret value appears in them', () => {
    const weak = {
      MASTER_KEY: 'short-master',
      JWT_SECRET: TEST_JWT_SECRET,
      PRINCIPAL_SECRET: TEST_JWT_SECRET,
      AMQP_URL: 'amqp://u:guest@h',
    };

    const text = findUnsafeSettings(aConfig(weak)).join('\n');

    for (const value of ['short-master', TEST_JWT_SECRET, 'u:guest']) expect(text).not.toContain(value);
  });
});

describe('assertSafeSettings', () => {
  test('when a setting is weak, then it throws with every problem listed', () => {
    const act = () => assertSafeSettings(aConfig({ MASTER_KEY: 'x', JWT_SECRET: 'y' }));

    expect(act).toThrow(UnsafeSettingsError);
    expect(act).toThrow(/MASTER_KEY is shorter than 32 bytes\n {2}- JWT_SECRET is shorter than 32 bytes/);
  });

  test('when every setting is sound, then it returns', () => {
    expect(() => assertSafeSettings(aConfig())).not.toThrow();
  });
});

describe('.env.example', () => {
  test('when it shows a value for a secret, then production refuses that value (so copying the example never ships a known secret)', () => {
    const example = fs.readFileSync(path.resolve(__dirname, '..', '..', '.env.example'), 'utf8');
    const secrets = [...example.matchAll(/^#?\s*([A-Z0-9_]+(?:_SECRET|_KEY|_TOKEN))=(\S*)/gm)].map((m) => [m[1]!, m[2]!] as const);

    expect(secrets.map(([key]) => key)).toEqual(expect.arrayContaining(['MASTER_KEY', 'JWT_SECRET', 'PRINCIPAL_SECRET']));
    for (const [key, value] of secrets) {
      if (value === '') continue; // filled in by npm start with fresh random bytes
      expect(findUnsafeSettings(aConfig({ [key]: value }))).not.toEqual([]);
    }
  });
});
