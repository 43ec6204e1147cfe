import { CHALLENGES, errorCatalogue, type CodeOf, type ErrorEntry } from '@restgate/shared';

/**
 * The error codes only the gateway answers, on top of `sharedErrorCatalogue` (docs/errors.md is
 * generated from both).
 */
export const gatewayErrorCatalogue = errorCatalogue({
  master_key_missing: {
    status: 401,
    title: 'Unauthorized',
    detail:
      'The master key is missing: send it as access_token in the query string or the body (the Authorization header carries the HTTP Basic e-mail and password).',
    headers: CHALLENGES.credentialMissing,
  },
  user_token_missing: {
    status: 401,
    title: 'Unauthorized',
    detail:
      "The user's token is missing: send it as access_token in the query string or the body (the Authorization header carries the HTTP Basic e-mail and password).",
    headers: CHALLENGES.credentialMissing,
  },
  basic_required: {
    status: 401,
    title: 'Unauthorized',
    detail: "This route needs HTTP Basic: the user's e-mail and password in Authorization: Basic.",
    headers: CHALLENGES.basic,
  },
  cors_not_enabled: {
    status: 405,
    title: 'Method not allowed',
    detail: 'A CORS preflight while CORS is off: the gateway answers preflights only when CORS_ORIGINS lists the page\'s origin (or "*").',
  },
} as const satisfies Record<string, ErrorEntry>);

export type GatewayErrorCode = CodeOf<typeof gatewayErrorCatalogue>;
