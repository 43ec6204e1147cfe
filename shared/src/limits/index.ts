/**
 * `@restgate/shared/limits`: what holds across replicas through Redis — rate limits (with their
 * local counting and fallback when Redis is away) and the list of ended sessions — and the Redis
 * client both use.
 */
export {
  countLocally,
  createRateLimits,
  parseQuota,
  rateLimited,
  rateLimitHeaders,
  QUOTA_PATTERN,
  type LimitDecision,
  type Limiter,
  type Quota,
  type RateLimits,
} from './rate-limit';
export { createRevocationList, recordRevocations, revocationKey, type RevocationList } from './revocations';
export { createRedis, type RedisHandle } from './redis';
export { addressKey } from './address-key';
