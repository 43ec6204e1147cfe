import { availableParallelism } from 'node:os';
import { ConfigError, loadConfig } from '@restgate/shared';
import { identityConfigSchema } from '../src/config';

const minimal = {
  MONGODB_URL: 'mongodb://127.0.0.1:27017',
  AMQP_URL: 'amqp://127.0.0.1:5672',
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

describe('identity config', () => {
  test('the defaults are those of the runtime contract', () => {
    expect(loadConfig(identityConfigSchema, minimal)).toMatchObject({
      PORT: 9001,
      HOST: '127.0.0.1',
      MONGODB_DB: 'identity',
      JWT_ISSUER: 'restgate',
      JWT_AUDIENCE: 'restgate-api',
      JWT_TTL_SECONDS: 900,
      REFRESH_TOKEN_TTL_SECONDS: 2_592_000,
      PASSWORD_MIN_LENGTH: 8,
      ARGON2_MEMORY_KIB: 19_456,
      ARGON2_ITERATIONS: 2,
      ARGON2_PARALLELISM: 1,
      HASH_WORKERS: availableParallelism(),
      HASH_WORKER_NICE: 19,
    });
  });

  test('every bad key is named', () => {
    const problems = problemsOf({ PRINCIPAL_SECRET: 'short', JWT_SECRET: 'short', ARGON2_MEMORY_KIB: '512', HASH_WORKERS: '0' });

    for (const key of ['MONGODB_URL', 'PRINCIPAL_SECRET', 'JWT_SECRET', 'ARGON2_MEMORY_KIB', 'HASH_WORKERS']) {
      expect(problems.join('\n')).toContain(key);
    }
  });

  test('JWT_SECRET may not be the principal secret', () => {
    expect(problemsOf({ ...minimal, JWT_SECRET: minimal.PRINCIPAL_SECRET }).join('\n')).toMatch(/JWT_SECRET.*PRINCIPAL_SECRET/);
  });
});
