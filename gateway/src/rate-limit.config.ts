import Joi from 'joi';
import { QUOTA_PATTERN } from '@restgate/shared/limits';

const quota = (fallback: string, what: string) =>
  Joi.string().pattern(QUOTA_PATTERN, 'points/seconds').default(fallback).description(`${what}, per client address, as points/seconds.`);

/** The gateway's keys for Redis, trusted proxies and the per-address ceilings. */
export const rateLimitConfigKeys = {
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .required()
    .description('Redis URL, e.g. redis://127.0.0.1:6379: the rate-limit counters, shared by every gateway replica.'),
  REDIS_KEY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9._:-]+$/)
    .default('restgate')
    .description('Prefix of every Redis key this process writes (tests use one per stack).'),
  TRUSTED_PROXIES: Joi.string()
    .allow('')
    .default('')
    .description(
      'Proxies whose X-Forwarded-For names the client: comma-separated addresses or CIDR ranges, or loopback, linklocal, uniquelocal. Empty: the socket address is the client.',
    ),
  RATE_LIMIT_ALL: quota('600/60', 'Requests to any route, counted as they arrive (refused ones too)'),
  RATE_LIMIT_BAD_CREDENTIALS: quota(
    '30/60',
    'Bad credentials (a wrong master key; an invalid, expired, forged or ended token), answered 429 instead of 401 past it; valid credentials never count here nor are refused by it',
  ),
  RATE_LIMIT_CREDENTIALS: quota(
    '20/60',
    'Password and second-factor checks (POST /auth, POST /auth/mfa, PUT /users/:id/password, DELETE /users/me/mfa)',
  ),
  RATE_LIMIT_SIGN_UP: quota('10/60', 'Sign-ups (POST /users)'),
  RATE_LIMIT_REFRESH: quota('30/60', 'Token refreshes (POST /auth/refresh)'),
  RATE_LIMIT_SOCIAL: quota('20/60', 'Social sign-ins (POST /auth/<provider>)'),
  RATE_LIMIT_PASSWORD_RESETS: quota('10/3600', 'Password reset requests (POST /password-resets)'),
  RATE_LIMIT_EMAIL_VERIFICATIONS: quota('10/3600', 'Requests for a new verification link (POST /email-verifications)'),
  RATE_LIMIT_MASTER_FACTOR: Joi.number()
    .integer()
    .min(1)
    .default(10)
    .description('How many times higher every per-address ceiling is for requests with the master key (a trusted client).'),
};

export interface RateLimitConfig {
  REDIS_URL: string;
  REDIS_KEY_PREFIX: string;
  TRUSTED_PROXIES: string;
  RATE_LIMIT_ALL: string;
  RATE_LIMIT_BAD_CREDENTIALS: string;
  RATE_LIMIT_CREDENTIALS: string;
  RATE_LIMIT_SIGN_UP: string;
  RATE_LIMIT_REFRESH: string;
  RATE_LIMIT_SOCIAL: string;
  RATE_LIMIT_PASSWORD_RESETS: string;
  RATE_LIMIT_EMAIL_VERIFICATIONS: string;
  RATE_LIMIT_MASTER_FACTOR: number;
}
