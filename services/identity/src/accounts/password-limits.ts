/**
 * Password limits, in a file of their own so that the request schemas (which the gateway loads
 * with the route specs) need not load the hasher.
 *
 * The longest accepted password, in characters (code points, as the API docs count them). Argon2id
 * takes any length, so this bounds the work one request can buy rather than a hash's input: a
 * password is read once (BLAKE2b) before the memory-hard part, whatever its length.
 */
export const PASSWORD_MAX_LENGTH = 256;

/**
 * bcrypt reads at most 72 bytes. Hashes made before Argon2id are bcrypt, and were only ever made
 * from passwords within it: a longer password can't be theirs, even when its first 72 bytes match.
 */
export const BCRYPT_MAX_BYTES = 72;
