/**
 * The start-up check that keeps weak settings out of production: `runService` runs it when
 * NODE_ENV=production and refuses to start, naming every problem (never a secret's value).
 */

/** Config keys holding secrets of ours: at least 32 bytes, not a known value, none equal to another. */
export const SECRET_KEY_PATTERN = /(?:_SECRET|_KEY|_TOKEN)$/;

/** Bytes a secret needs at least (HS256 wants a key as long as its output: 256 bits). */
export const MIN_SECRET_BYTES = 32;

/**
 * Values published somewhere (this repository's tests and docs, frameworks' examples): whoever
 * reads them can forge tokens. Compared case-insensitively.
 */
export const KNOWN_WEAK_SECRETS: readonly string[] = [
  'changeme',
  'change-me',
  'secret',
  'password',
  'jwt_secret',
  'master_key',
  'shhhh',
  'keyboard cat',
  'your-256-bit-secret',
  // restgate's own tests
  'test-principal-secret-0123456789abcdef',
  'test-master-key-0123456789abcdef-0123',
  'test-jwt-secret-0123456789abcdef-0123',
  'test-jwt-secret-0123456789abcdef-0123456789',
];

/** Words that mark a value someone was meant to replace. */
const PLACEHOLDER = /change[-_ ]?(?:me|this)|replace[-_ ]?(?:me|this)|placeholder|example|dummy|insecure|0123456789|^test[-_]/i;

/** A random 32-byte secret, in any usual encoding, uses far more distinct characters than this. */
const MIN_DISTINCT_CHARACTERS = 10;

/** Passwords in URLs (`amqp://guest:guest@…`) that are a product's default. */
const DEFAULT_URL_PASSWORDS = new Set(['guest', 'password', 'changeme', 'secret', 'admin', 'root', 'test']);

/** Thrown by `assertSafeSettings` with every problem found. */
export class UnsafeSettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`Refusing to run in production with unsafe settings:\n  - ${problems.join('\n  - ')}`);
    this.name = 'UnsafeSettingsError';
  }
}

function secretProblem(key: string, value: string): string | undefined {
  if (Buffer.byteLength(value, 'utf8') < MIN_SECRET_BYTES) return `${key} is shorter than ${MIN_SECRET_BYTES} bytes`;
  if (KNOWN_WEAK_SECRETS.includes(value.toLowerCase())) return `${key} is a published default or example value`;
  if (PLACEHOLDER.test(value)) return `${key} looks like a placeholder or test value, not a random secret`;
  if (new Set(value).size < MIN_DISTINCT_CHARACTERS) return `${key} has too few distinct characters to be random`;
  return undefined;
}

/** A URL, or each URL of a comma-separated list (AMQP_URL may name a cluster's nodes). */
function urlPasswordProblem(key: string, value: string): string | undefined {
  const urls = value.split(',').map((part) => part.trim());
  return urls.some(hasDefaultPassword) ? `${key} uses a default password` : undefined;
}

function hasDefaultPassword(value: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false;
  try {
    return DEFAULT_URL_PASSWORDS.has(decodeURIComponent(new URL(value).password).toLowerCase());
  } catch {
    return false;
  }
}

function isOn(value: unknown): boolean {
  return value === true || (typeof value === 'string' && /^(?:true|1|yes)$/i.test(value.trim()));
}

/**
 * Every weak setting in `config`, as a sentence naming the key (never the value):
 * - a secret (`*_SECRET`, `*_KEY`, `*_TOKEN`) shorter than 32 bytes, a published default or test
 *   value, a placeholder, or visibly not random;
 * - the same value for two secrets (one leak would then open both doors);
 * - a URL carrying a product's default password (`guest`…);
 * - CORS for any origin (`*`) together with credentials.
 * `extra` adds a service's own checks.
 */
export function findUnsafeSettings<C extends object>(config: C, extra?: (config: C) => string[]): string[] {
  const entries = Object.entries(config as Record<string, unknown>);
  const problems: string[] = [];
  const secrets = entries.filter((e): e is [string, string] => SECRET_KEY_PATTERN.test(e[0]) && typeof e[1] === 'string' && e[1] !== '');
  for (const [key, value] of secrets) {
    const problem = secretProblem(key, value);
    if (problem) problems.push(problem);
  }
  const byValue = new Map<string, string[]>();
  for (const [key, value] of secrets) byValue.set(value, [...(byValue.get(value) ?? []), key]);
  for (const keys of byValue.values()) {
    if (keys.length > 1) problems.push(`${keys.join(' and ')} have the same value; each secret must be different`);
  }
  for (const [key, value] of entries) {
    const problem = typeof value === 'string' ? urlPasswordProblem(key, value) : undefined;
    if (problem) problems.push(problem);
  }
  const origins = (config as { CORS_ORIGINS?: unknown }).CORS_ORIGINS;
  const anyOrigin = typeof origins === 'string' && origins.split(',').some((origin) => origin.trim() === '*');
  const credentials = entries.some(([key, value]) => /CORS_(?:ALLOW_)?CREDENTIALS$/.test(key) && isOn(value));
  if (anyOrigin && credentials) problems.push('CORS_ORIGINS allows any origin ("*") together with credentials; list the allowed origins');
  problems.push(...(extra?.(config) ?? []));
  return problems;
}

/** Throws `UnsafeSettingsError` naming every weak setting of `config` (see `findUnsafeSettings`). */
export function assertSafeSettings<C extends object>(config: C, extra?: (config: C) => string[]): void {
  const problems = findUnsafeSettings(config, extra);
  if (problems.length > 0) throw new UnsafeSettingsError(problems);
}
