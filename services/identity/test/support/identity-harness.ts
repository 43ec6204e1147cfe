import { createLogger, createMetrics, loadConfig, type Metrics, type Principal } from '@restgate/shared';
import { asPrincipal, randomEmail, TEST_PRINCIPAL_SECRET, testMongoUrl, uniqueDbName, uniqueSuffix } from '@restgate/shared/testing';
import type { Express } from 'express';
import { ObjectId, type Db } from 'mongodb';
import request from 'supertest';
import type { AbuseLimits } from '../../src/abuse.wiring';
import { identityConfigSchema, type IdentityConfig } from '../../src/config';
import { createUser } from '../../src/accounts/create-user';
import { noVerificationMail } from '../../src/accounts/accounts-deps';
import type { PasswordHasher } from '../../src/accounts/password-hasher.port';
import type { Role } from '../../src/accounts/user';
import { createIdentity, type Identity } from '../../src/identity';
import { startFakeGitHub, type FakeProvider, type GitHubAccount } from './fake-providers';

export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdef-0123456789';
export const MASTER: Principal = { kind: 'master' };
export const ANONYMOUS: Principal = { kind: 'anonymous' };

export interface TestUser {
  id: string;
  email: string;
  password: string;
  role: Role;
  principal: Principal;
}

export interface IdentityHarness {
  app: Express;
  db: Db;
  config: IdentityConfig;
  /** A request as the gateway would forward it for `principal` (none: no principal header). */
  call(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, principal?: Principal): request.Test;
  /** A user made through the service's own use case. */
  aUser(overrides?: { email?: string; password?: string; name?: string; role?: Role }): Promise<TestUser>;
  /** The stored user document, or null. */
  userDoc(id: string): Promise<Record<string, any> | null>;
  /** Password resets and e-mail verifications as start.ts wires them. */
  links: Identity['links'];
  /** The broker connection, the outbox relay and the periodic clean-up run only after `start()`. */
  start(): void;
  amqp: Identity['amqp'];
  relay: Identity['relay'];
  ensureIndexes(): Promise<void>;
  hasher: PasswordHasher;
  metrics: Metrics;
  /** With `{ abuse: true }`: the back-off and reset-mail cap on Redis, as start.ts wires them. */
  abuse?: AbuseLimits;
  close(): Promise<void>;
}

/**
 * The identity service as start.ts builds it (`createIdentity`), on its own database, with cheap
 * hashing. The relay is not started: tests that need it call `start()`. With `verificationMails:
 * false`, users made by `aUser()` get no verification mail (for tests that count other mails).
 */
export async function startIdentity(
  env: Record<string, string> = {},
  options: { abuse?: boolean; verificationMails?: boolean } = {},
): Promise<IdentityHarness> {
  const config = loadConfig(identityConfigSchema, {
    PORT: '0',
    MONGODB_URL: testMongoUrl(),
    MONGODB_DB: uniqueDbName('identity'),
    PRINCIPAL_SECRET: TEST_PRINCIPAL_SECRET,
    JWT_SECRET: TEST_JWT_SECRET,
    // Cheap hashes (the costs' floor); tests that need slow ones set their own.
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_ITERATIONS: '1',
    HASH_WORKERS: '1',
    LOG_LEVEL: 'silent',
    AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    TOPOLOGY_PREFIX: `test.identity.${uniqueSuffix()}.`,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `test-identity-${uniqueSuffix()}`,
    ...env,
  });
  const logger = createLogger({ name: 'identity-test', level: config.LOG_LEVEL });
  const metrics = createMetrics();
  // Abuse protection only where a test asks for it: other tests sign in many times from one address.
  // A short reconnect back-off: outage tests wait for the reconnect.
  const identity = createIdentity({
    config,
    logger,
    metrics,
    abuseProtection: options.abuse ?? false,
    amqpOptions: { reconnectDelayMs: { min: 50, max: 500 } },
  });
  const { app, mongo, deps, abuse } = identity;
  const signUpDeps = options.verificationMails === false ? { ...deps, sendVerificationMail: noVerificationMail } : deps;
  try {
    await identity.whenReady();
    await identity.ensureIndexes(0);
  } catch (err) {
    await identity.stop();
    throw err;
  }

  return {
    app,
    db: mongo.db,
    config,
    call(method, path, principal) {
      const test = request(app)[method](path);
      return principal ? test.set(asPrincipal(principal, method, path)) : test;
    },
    async aUser(overrides = {}) {
      const email = overrides.email ?? randomEmail();
      const password = overrides.password ?? `pw-${uniqueSuffix()}`;
      const role = overrides.role ?? 'user';
      const user = await createUser(signUpDeps, MASTER, { email, password, role, name: overrides.name });
      return { id: user.id, email: user.email, password, role, principal: { kind: 'user', id: user.id, role } };
    },
    userDoc: (id) => mongo.db.collection('users').findOne({ _id: new ObjectId(id) }),
    links: identity.links,
    start: () => identity.start(),
    amqp: identity.amqp,
    relay: identity.relay,
    ensureIndexes: () => identity.ensureIndexes(0),
    hasher: deps.hasher,
    metrics,
    abuse,
    async close() {
      // The relay and the clean-up first, so nothing writes to the database while it is dropped.
      await identity.housekeeping.stop();
      await identity.relay.stop();
      await mongo.db.dropDatabase();
      await identity.stop();
    },
  };
}

/** Identity with GitHub sign-in on, against a fake GitHub on loopback; `close` stops both. */
export async function startIdentityWithGitHub(
  env: Record<string, string> = {},
): Promise<IdentityHarness & { github: FakeProvider<GitHubAccount> }> {
  const github = await startFakeGitHub();
  try {
    const h = await startIdentity({ SOCIAL_PROVIDERS: 'github', GITHUB_API_URL: github.url, ...env });
    return {
      ...h,
      github,
      async close() {
        await h.close();
        await github.close();
      },
    };
  } catch (err) {
    await github.close();
    throw err;
  }
}

export function basic(email: string, password: string): string {
  return `Basic ${Buffer.from(`${email}:${password}`, 'utf8').toString('base64')}`;
}

/** An ObjectId-shaped id that no user has. */
export function unknownId(): string {
  return `${'0'.repeat(12)}${uniqueSuffix()}`;
}

/** Asserts a problem+json error; with `param`, a validation error naming it. */
export function expectProblem(res: request.Response, status: number, param?: string): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({
    status,
    type: expect.stringContaining('application/problem+json'),
  });
  expect(res.body).toMatchObject({ status, code: expect.any(String), requestId: expect.any(String) });
  if (param !== undefined) expect(res.body.param).toBe(param);
}
