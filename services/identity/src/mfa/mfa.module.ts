import type { RateLimits } from '@restgate/shared/limits';
import type { RouteDef } from '@restgate/shared/http';
import type { Db } from 'mongodb';
import type { SecondFactorPort } from '../accounts/accounts-deps';
import type { UserRecord } from '../accounts/user';
import { afterPasswordReset, secondFactorPort, type MfaModuleDeps } from './mfa';
import { mfaApi } from './mfa.api';
import { createMfaCrypto } from './mfa-crypto';
import { MongoMfaRepository } from './mfa.repository';
import { mfaRoutes } from './mfa.routes';
import { SECOND_FACTOR_RULES } from './second-factor-guard';
import { createSecondFactorGuard } from './second-factor-guard.store';

/** Multi-factor sign-in as identity composes it: its routes, the core's second-factor port, and what a reset ends. */
export interface MfaModule {
  routes: RouteDef[];
  /** Filled into the core's `secondFactor` port. */
  secondFactor: SecondFactorPort;
  /** A completed password reset (emailed-links calls it through the composition). */
  afterPasswordReset(before: UserRecord): Promise<void>;
  ensureIndexes(): Promise<void>;
}

/**
 * TOTP with recovery codes. Without MFA_ENCRYPTION_KEY the module is still composed, with only the
 * admin's switch-off among its routes: a user whose factor is stored must never get in with the
 * password alone because the key went missing, and the switch-off is how they get back in.
 */
export function createMfaModule(parts: {
  db: Db;
  core: Omit<MfaModuleDeps, 'mfa' | 'secondFactors' | 'mfaCrypto'>;
  /** The service's limits on Redis: the bounds on guessing codes are always on (a security rule, not an abuse limit). */
  limits: RateLimits;
  encryptionKey?: string;
  issuer: string;
}): MfaModule {
  const mfa = new MongoMfaRepository(parts.db);
  const deps: MfaModuleDeps = {
    ...parts.core,
    mfa,
    secondFactors: createSecondFactorGuard(parts.limits, SECOND_FACTOR_RULES),
    mfaCrypto: parts.encryptionKey ? createMfaCrypto(parts.encryptionKey, parts.issuer) : undefined,
  };
  return {
    routes: mfaRoutes(deps, mfaApi()),
    secondFactor: secondFactorPort(deps),
    afterPasswordReset: (before) => afterPasswordReset(deps, before),
    ensureIndexes: () => mfa.ensureIndexes(),
  };
}
