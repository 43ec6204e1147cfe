import type { AccessLevel } from '../http/routes';
import { sortResponses } from './responses';
import { ref, type OpenApiOperation, type SecurityRequirement } from './types';

/** What an access level means in the docs: a line of the description and a security requirement. */

const LEVEL_TEXT: Record<AccessLevel, string> = {
  public: 'public — anyone.',
  master: 'master — the master key.',
  user: 'user — a valid user token, any role.',
  admin: 'admin — a user token whose role is `admin`.',
  basic: 'basic — HTTP Basic e-mail and password of the user concerned.',
  'master+basic': 'master+basic — the master key in `access_token` and HTTP Basic e-mail and password.',
  'user+basic': "user+basic — the user's own token in `access_token` (query or body) and their HTTP Basic e-mail and password.",
  provider: "provider — the social provider's access token (`access_token` or Bearer), passed through.",
};

const LEVEL_SECURITY: Record<AccessLevel, SecurityRequirement[]> = {
  public: [],
  master: [{ masterKey: [] }],
  user: [{ userToken: [] }],
  // An admin token is a user token with a role: one scheme, so one "Authorize" in Swagger UI serves both.
  admin: [{ userToken: [] }],
  basic: [{ basic: [] }],
  'master+basic': [{ masterKey: [], basic: [] }],
  // The Authorization header carries Basic, so the token goes as access_token.
  'user+basic': [{ ownToken: [], basic: [] }],
  provider: [{ providerToken: [] }],
};

/**
 * Sets everything on an operation that follows from its access level: the security requirement,
 * the level line of the description, and the 401/403 responses. The gateway calls it with the
 * level in force when it differs from the one the service documented.
 */
export function applyAccessLevel(operation: OpenApiOperation, level: AccessLevel): OpenApiOperation {
  const changed = operation['x-restgate-level'] !== level;
  const description = (operation.description ?? '').replace(/^\*\*Access:\*\*[^\n]*\n?\n?/, '');
  const responses = { ...operation.responses };
  if (changed) {
    delete responses['401'];
    delete responses['403'];
  }
  if (level !== 'public') responses['401'] ??= ref('responses', 'Unauthorized');
  if (level !== 'public' && level !== 'provider') responses['403'] ??= ref('responses', 'Forbidden');
  return {
    ...operation,
    description: `**Access:** ${LEVEL_TEXT[level]}${description ? `\n\n${description}` : ''}`,
    security: LEVEL_SECURITY[level].map((requirement) => ({ ...requirement })),
    responses: sortResponses(responses),
    'x-restgate-level': level,
  };
}
