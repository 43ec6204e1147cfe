import Joi from 'joi';
import type { ConfigKeys } from '@restgate/shared';
import { QUOTA_PATTERN } from '@restgate/shared/limits';

const quota = () => Joi.string().pattern(QUOTA_PATTERN, 'points/seconds');

/** Identity's keys for the abuse limits: the password back-off, reset-mail caps, the hash queue. */
export const abuseConfigKeys = {
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .required()
    .description(
      'Redis URL, e.g. redis://127.0.0.1:6379: the counters of the password back-off and the reset-mail caps, shared by every replica.',
    ),
  REDIS_KEY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9._:-]+$/)
    .default('restgate')
    .description('Prefix of every Redis key this process writes (tests use one per stack).'),
  PASSWORD_BACKOFF_FREE_FAILURES: Joi.number()
    .integer()
    .min(1)
    .default(5)
    .description('Wrong passwords in a row for one account from one address before each further try must wait.'),
  PASSWORD_BACKOFF_BASE_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(1)
    .description('The first wait of the back-off, in seconds; each further failure doubles it.'),
  PASSWORD_BACKOFF_MAX_SECONDS: Joi.number().integer().min(1).default(900).description('The longest wait of the back-off, in seconds.'),
  PASSWORD_ACCOUNT_FAILURES: quota()
    .default('100/3600')
    .description(
      'Wrong passwords for one account from all addresses together, as points/seconds; past it, addresses with failures for that account wait for the window to end (an address with none still gets its check: the owner is never locked out).',
    ),
  RESET_MAILS_PER_EMAIL: quota()
    .default('3/3600')
    .description(
      'Reset mails one e-mail address gets, as points/seconds, and, counted apart, requested verification mails (POST /email-verifications); past it the answer is the same 202 and no mail is sent.',
    ),
  HASH_QUEUE_MAX: Joi.number()
    .integer()
    .min(0)
    .default(16)
    .description('Password checks that may wait for a hashing worker; past it the answer is 503 with Retry-After.'),
  HASH_SIGN_IN_SHARE: Joi.number()
    .integer()
    .min(0)
    .max(90)
    .default(50)
    .description(
      'Percent of the hashing capacity (HASH_WORKERS running + HASH_QUEUE_MAX waiting) kept for sign-ins (POST /auth): other hashing (sign-ups, password changes and resets) is answered 503 once it holds the rest, and a free worker serves a waiting sign-in first.',
    ),
} satisfies ConfigKeys<AbuseConfig>;

export interface AbuseConfig {
  REDIS_URL: string;
  REDIS_KEY_PREFIX: string;
  PASSWORD_BACKOFF_FREE_FAILURES: number;
  PASSWORD_BACKOFF_BASE_SECONDS: number;
  PASSWORD_BACKOFF_MAX_SECONDS: number;
  PASSWORD_ACCOUNT_FAILURES: string;
  RESET_MAILS_PER_EMAIL: string;
  HASH_QUEUE_MAX: number;
  HASH_SIGN_IN_SHARE: number;
}
