import { errorCatalogue, type CodeOf, type ErrorEntry } from '@restgate/shared';

/**
 * The error codes only the gateway answers, on top of `sharedErrorCatalogue` (docs/errors.md is
 * generated from both).
 */
export const gatewayErrorCatalogue = errorCatalogue({
  cors_not_enabled: {
    status: 405,
    title: 'Method not allowed',
    detail: 'A CORS preflight while CORS is off: the gateway answers preflights only when CORS_ORIGINS lists the page\'s origin (or "*").',
  },
} as const satisfies Record<string, ErrorEntry>);

export type GatewayErrorCode = CodeOf<typeof gatewayErrorCatalogue>;
