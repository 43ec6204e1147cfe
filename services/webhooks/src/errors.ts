import { errorCatalogue, problem, sharedErrorCatalogue, type CodeOf, type ErrorEntry } from '@restgate/shared';

/**
 * The error codes only this service answers, on top of `sharedErrorCatalogue`. Route specs list
 * these entries for their error responses, and docs/errors.md is generated from them.
 */
export const webhookErrorCatalogue = errorCatalogue({
  webhook_not_found: { status: 404, title: 'Not found', detail: 'No webhook endpoint with this id.' },
  delivery_not_found: { status: 404, title: 'Not found', detail: 'No delivery with this id for this endpoint.' },
  endpoint_limit_reached: {
    status: 400,
    title: 'Too many endpoints',
    detail: 'At most 100 webhook endpoints may exist; delete one first.',
  },
} as const satisfies Record<string, ErrorEntry>);

export type WebhookErrorCode = CodeOf<typeof webhookErrorCatalogue>;

/** Every code this service answers: shared's and its own. */
export const webhookCodes = { ...sharedErrorCatalogue, ...webhookErrorCatalogue };

export const webhookErrors = {
  notFound: () => problem(webhookErrorCatalogue.webhook_not_found),
  deliveryNotFound: () => problem(webhookErrorCatalogue.delivery_not_found),
  limitReached: (limit: number) =>
    problem(webhookErrorCatalogue.endpoint_limit_reached, {
      detail: `At most ${limit} webhook endpoints may exist; delete one first.`,
      extras: { param: 'url' },
    }),
};
