/**
 * bcrypt reads at most 72 bytes; longer input would be silently truncated. A file of its own so
 * that the request schemas (which the gateway loads with the route specs) need not load the hasher.
 */
export const BCRYPT_MAX_BYTES = 72;
