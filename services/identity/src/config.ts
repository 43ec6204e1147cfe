import { availableParallelism } from 'node:os';
import Joi from 'joi';
import { baseConfigSchema, userTokenConfigKeys, type BaseConfig, type ConfigKeys, type UserTokenConfig } from '@restgate/shared';
import { brokerUrlList } from '@restgate/shared/messaging';
import { abuseConfigKeys, type AbuseConfig } from './abuse.config';
import { PASSWORD_MAX_LENGTH } from './accounts/password-limits';
import { SOCIAL_PROVIDER_NAMES, type SocialProviderName } from './social/social-provider';

export interface IdentityConfig extends BaseConfig, AbuseConfig, UserTokenConfig {
  MONGODB_URL: string;
  MONGODB_DB: string;
  REFRESH_TOKEN_TTL_SECONDS: number;
  REFRESH_REUSE_GRACE_SECONDS: number;
  MFA_ENCRYPTION_KEY: string;
  PASSWORD_MIN_LENGTH: number;
  ARGON2_MEMORY_KIB: number;
  ARGON2_ITERATIONS: number;
  ARGON2_PARALLELISM: number;
  HASH_WORKERS: number;
  HASH_WORKER_NICE: number;
  AMQP_URL: string;
  RESET_LINK_ORIGINS: string[];
  RESET_DEFAULT_PAGE: string;
  RESET_TOKEN_TTL_SECONDS: number;
  OUTBOX_POLL_MS: number;
  AUDIT_EVENTS: boolean;
  TOPOLOGY_PREFIX: string;
  EMAIL_VERIFICATION_PAGE: string;
  REQUIRE_VERIFIED_EMAIL: boolean;
  ADMIN_SIGN_UP?: 'master' | 'admin' | 'off';
  SOCIAL_PROVIDERS: SocialProviderName[];
  SOCIAL_TIMEOUT_MS: number;
  FACEBOOK_API_URL: string;
  FACEBOOK_APP_ID?: string;
  FACEBOOK_APP_SECRET?: string;
  GITHUB_API_URL: string;
  GITHUB_CLIENT_ID?: string;
  GITHUB_CLIENT_SECRET?: string;
  GOOGLE_API_URL: string;
  GOOGLE_CLIENT_ID: string[];
}

const httpUrl = Joi.string().uri({ scheme: ['http', 'https'] });

/** "a, b,c" → ['a', 'b', 'c'] (trimmed, no empties, no repeats); with `allowed` (lower-case names), anything else is an error. */
function commaList(allowed?: readonly string[]) {
  return Joi.string()
    .empty('')
    .custom((value: string, helpers) => {
      const items = new Set(value.split(',').map((item) => (allowed ? item.trim().toLowerCase() : item.trim())));
      items.delete('');
      const unknown = [...items].filter((item) => allowed && !allowed.includes(item));
      if (unknown.length > 0) return helpers.message({ custom: `{{#label}} has ${unknown.join(', ')}; allowed: ${allowed?.join(', ')}` });
      return [...items];
    });
}

/** The origin `item` names, or null when it is not a bare http(s) origin (a path, query, fragment or credentials). */
function originOf(item: string): string | null {
  try {
    const url = new URL(item);
    const bare = (url.protocol === 'https:' || url.protocol === 'http:') && url.pathname === '/' && !url.search && !url.hash;
    return bare && !url.username && !url.password ? url.origin : null;
  } catch {
    return null;
  }
}

/** "https://a.example, http://b.example:8080" → their origins, normalised as browsers do (`new URL(x).origin`). */
function originList() {
  return Joi.string()
    .empty('')
    .custom((value: string, helpers) => {
      const items = value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);
      const bad = items.filter((item) => originOf(item) === null);
      if (bad.length > 0)
        return helpers.message({ custom: `{{#label}} has ${bad.join(', ')}: not origins such as https://app.example.com` });
      return [...new Set(items.map(originOf))];
    });
}

/** Identity's own keys (the user tokens' are shared with the gateway), checked against IdentityConfig. */
const identityKeys = {
  PORT: Joi.number().port().default(9001).description('Port to listen on.'),
  MONGODB_URL: Joi.string()
    .uri({ scheme: ['mongodb', 'mongodb+srv'] })
    .required()
    .description('MongoDB connection string.'),
  MONGODB_DB: Joi.string().default('identity').description('Database owned by the identity service.'),
  ...userTokenConfigKeys,
  REFRESH_TOKEN_TTL_SECONDS: Joi.number()
    .integer()
    .min(60)
    .max(31_536_000)
    .default(2_592_000)
    .description(
      'Lifetime of a refresh token, in seconds; each refresh hands out a new one with a new lifetime. A session unused that long ends.',
    ),
  REFRESH_REUSE_GRACE_SECONDS: Joi.number()
    .integer()
    .min(0)
    .max(300)
    .default(10)
    .description(
      'How long after a refresh token is used presenting it again is a retry (answered with the same next refresh token) rather than a theft (its session ends), in seconds; 0: never.',
    ),
  MFA_ENCRYPTION_KEY: Joi.string()
    .min(32)
    .allow('')
    .default('')
    .invalid(Joi.ref('JWT_SECRET'), Joi.ref('PRINCIPAL_SECRET'))
    .messages({ 'any.invalid': '{{#label}} must differ from JWT_SECRET and PRINCIPAL_SECRET' })
    .description(
      'Key (32+ random characters) that encrypts TOTP secrets at rest and keys the recovery-code hashes; empty: multi-factor sign-in is off (its routes answer 404). Keep it: under another key, enrolled users cannot complete a sign-in until an admin turns their MFA off.',
    ),
  PASSWORD_MIN_LENGTH: Joi.number()
    .integer()
    .min(1)
    .max(PASSWORD_MAX_LENGTH)
    .default(8)
    .description(`Shortest accepted password, in characters (the longest is ${PASSWORD_MAX_LENGTH}).`),
  // OWASP's first choice for password storage, at its minimum costs (m = 19 MiB, t = 2, p = 1).
  ARGON2_MEMORY_KIB: Joi.number()
    .integer()
    .min(1024)
    .max(1_048_576)
    .default(19_456)
    .description(
      "Argon2id memory cost per password hash, in KiB (default 19456, OWASP's minimum). Each running hash holds it: hashing memory is at most HASH_WORKERS times this. Changing a cost rehashes each password at its next sign-in.",
    ),
  ARGON2_ITERATIONS: Joi.number()
    .integer()
    .min(1)
    .max(100)
    .default(2)
    .description("Argon2id time cost: passes over the memory (default 2, OWASP's minimum)."),
  ARGON2_PARALLELISM: Joi.number()
    .integer()
    .min(1)
    .max(16)
    .default(1)
    .description("Argon2id parallelism: lanes per hash (default 1, OWASP's; at least 8 KiB of ARGON2_MEMORY_KIB each)."),
  HASH_WORKERS: Joi.number()
    .integer()
    .min(1)
    .max(64)
    .default(availableParallelism())
    .description('Worker threads that hash and compare passwords (default: one per core, behind the event loops by HASH_WORKER_NICE).'),
  HASH_WORKER_NICE: Joi.number()
    .integer()
    .min(0)
    .max(19)
    .default(19)
    .description(
      'How much lower the scheduling priority of the hashing threads is (Linux nice increment, 0–19): a busy core serves event loops first and hashes with what is left.',
    ),
  AMQP_URL: brokerUrlList()
    .required()
    .description(
      'RabbitMQ URL, e.g. amqp://guest:guest@127.0.0.1:5672: where the outbox relay publishes mail requests (password reset mails). For a cluster, its nodes comma-separated: the relay connects to one (a random one first) and, when that connection is lost or refused, to the next.',
    ),
  RESET_LINK_ORIGINS: originList()
    .default([])
    .description(
      'Origins (scheme://host[:port]) a POST /password-resets `link` may have, comma-separated, e.g. "https://app.example.com". A link with any other origin gets RESET_DEFAULT_PAGE instead. Default none.',
    ),
  RESET_DEFAULT_PAGE: httpUrl
    .default('http://127.0.0.1:9000/password-resets')
    .description(
      "The page a reset mail links to (as <page>/<token>) when the request's link is missing or not allowed. Default: the local gateway's own GET /password-resets/:token, which answers whose token it is; set your app's reset page in production.",
    ),
  RESET_TOKEN_TTL_SECONDS: Joi.number()
    .integer()
    .min(60)
    .max(86_400)
    .default(3_600)
    .description('How long a password reset token works, in seconds.'),
  EMAIL_VERIFICATION_PAGE: httpUrl
    .default('http://127.0.0.1:9000/email-verifications')
    .description(
      "The page a verification mail links to (as <page>/<token>). Default: the local gateway's own GET /email-verifications/:token, a page with a button that verifies; set your app's page in production.",
    ),
  REQUIRE_VERIFIED_EMAIL: Joi.boolean()
    .default(false)
    .description('When true, sign-in (POST /auth) of a user whose e-mail is not verified is refused: 403 `email_unverified`.'),
  ADMIN_SIGN_UP: Joi.string()
    .valid('master', 'admin', 'off')
    .empty('')
    .description(
      "Who may create admins (role=admin on POST /users): master (the master key or an admin), admin (only an admin's token, with the second factor MFA_REQUIRED_ROLES asks for), off (no one). Unset: master, but admin with NODE_ENV=production, where master must be set explicitly (to create the first admin).",
    ),
  OUTBOX_POLL_MS: Joi.number()
    .integer()
    .min(50)
    .max(600_000)
    .default(2_000)
    .description(
      'How often the outbox relay looks for mail requests to publish (retries, rows of other replicas, the backlog after a broker outage); a new request wakes it at once.',
    ),
  AUDIT_EVENTS: Joi.boolean()
    .default(true)
    .description(
      'Record sign-ins, failures, sessions, password and MFA changes as `auth.*` events for the audit log (the audit service stores them). Off: none is recorded.',
    ),
  TOPOLOGY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9._-]*$/)
    .allow('')
    .default('')
    .description("Prefix of the mail exchange's name (identity declares no queue), the same as the mailer's (tests use one per file)."),
  SOCIAL_PROVIDERS: commaList(SOCIAL_PROVIDER_NAMES)
    .default([])
    .description(
      "Social sign-in providers to enable, comma-separated: facebook, github, google. Default none; a disabled provider's POST /auth/<provider> is a 404. With NODE_ENV=production each one needs its app binding (GITHUB_CLIENT_ID and _SECRET, FACEBOOK_APP_ID and _SECRET, GOOGLE_CLIENT_ID), or the service refuses to start.",
    ),
  SOCIAL_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1)
    .max(60_000)
    .default(5_000)
    .description('Deadline for all the provider calls of one social sign-in; past it the answer is 504.'),
  FACEBOOK_API_URL: httpUrl.default('https://graph.facebook.com/v24.0').description('Facebook Graph API base URL, with its version.'),
  FACEBOOK_APP_ID: Joi.string().trim().empty('').description('Facebook app id: with the secret, only tokens issued to this app sign in.'),
  FACEBOOK_APP_SECRET: Joi.string()
    .trim()
    .empty('')
    .when('FACEBOOK_APP_ID', { is: Joi.exist(), then: Joi.required(), otherwise: Joi.forbidden() })
    .messages({ 'any.unknown': '{{#label}} needs FACEBOOK_APP_ID' })
    .description('Facebook app secret (with FACEBOOK_APP_ID): signs appsecret_proof and the debug_token check.'),
  GITHUB_API_URL: httpUrl.default('https://api.github.com').description('GitHub REST API base URL.'),
  GITHUB_CLIENT_ID: Joi.string()
    .trim()
    .empty('')
    .description("GitHub OAuth app client id: with the secret, only tokens issued to this app sign in (GitHub's token check)."),
  GITHUB_CLIENT_SECRET: Joi.string()
    .trim()
    .empty('')
    .when('GITHUB_CLIENT_ID', { is: Joi.exist(), then: Joi.required(), otherwise: Joi.forbidden() })
    .messages({ 'any.unknown': '{{#label}} needs GITHUB_CLIENT_ID' })
    .description('GitHub OAuth app client secret (with GITHUB_CLIENT_ID): authenticates the token check.'),
  GOOGLE_API_URL: httpUrl.default('https://www.googleapis.com').description("Base URL of Google's userinfo and tokeninfo endpoints."),
  GOOGLE_CLIENT_ID: commaList()
    .default([])
    .description('Google OAuth client ids, comma-separated: when set, only tokens issued to one of them sign in.'),
} satisfies ConfigKeys<IdentityConfig, keyof BaseConfig | keyof AbuseConfig>;

export const identityConfigSchema = baseConfigSchema.keys(identityKeys).keys(abuseConfigKeys) as Joi.ObjectSchema<IdentityConfig>;
