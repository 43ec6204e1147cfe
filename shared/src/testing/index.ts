import { randomBytes } from 'node:crypto';
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from '../principal';

/**
 * Test helpers for services: sign a principal the way the gateway does, and make unique data.
 * Tests only; never imported by service code.
 */
export const TEST_PRINCIPAL_SECRET = 'test-principal-secret-0123456789abcdef';

/** Headers that make a direct request look as if the gateway had forwarded it for `principal`. */
export function asPrincipal(principal: Principal, method: string, path: string, secret = TEST_PRINCIPAL_SECRET): Record<string, string> {
  return { [PRINCIPAL_HEADER]: signPrincipal(principal, secret, method, path.split('?')[0] ?? '/') };
}

export function uniqueSuffix(): string {
  return randomBytes(6).toString('hex');
}

export function randomEmail(prefix = 'user'): string {
  return `${prefix}.${uniqueSuffix()}@example.test`;
}

/** The MongoDB URL the jest global setup provisioned. */
export function testMongoUrl(): string {
  const url = process.env.MONGODB_URL;
  if (!url) throw new Error('MONGODB_URL is not set: run the tests through jest (its global setup provisions MongoDB)');
  return url;
}

/** A database name no other test file uses. */
export function uniqueDbName(service: string): string {
  return `test_${service}_${uniqueSuffix()}`;
}

export { findOperation, responseMatches, validateOpenApiDocument } from './openapi-check';

export { capturingLogger } from './log-capture';

// Parts of the kit that only tests look into: services get them through runService, createHttpApp
// and the listing helpers, never by name.
export { markStopping } from '../health';
export { opsOf } from '../data/listing-filters';
export { CURSOR_PATTERN } from '../data/listing-cursor';
export { assertSafeSettings, findUnsafeSettings, KNOWN_WEAK_SECRETS, UnsafeSettingsError } from '../production-checks';
