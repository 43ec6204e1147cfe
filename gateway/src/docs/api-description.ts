import { LISTING_LIMITS } from '@restgate/shared/data';

/**
 * What the whole API promises, shown at the top of the docs page: the gateway's product
 * description (requests, access levels, errors, listings and the gateway's own operations paths).
 */
export const API_DESCRIPTION = `restgate: users, sign-in with signed tokens, password resets, social login and example resources, behind one gateway.
The whole contract, with the decisions taken where it was silent, is \`docs/api.md\` in the repository; this document is generated from the same route specs.

To try a route here: **Authorize** once with \`userToken\` (a user token from \`POST /auth\`; an admin's token for admin routes, which take the same scheme)
and, for sign-up or sign-in, \`masterKey\` (and \`basic\`); Swagger UI then sends \`Authorization: Bearer <token>\`, or the master key as \`access_token\`.

## Requests
Bodies are \`application/x-www-form-urlencoded\` (the primary form, parsed flat) or \`application/json\`, on every endpoint.
Send the credential in exactly one place: \`access_token\` in the query string or the body, or \`Authorization: Bearer <token>\`
(a credential in two places is a 400). \`X-Request-Id\` is accepted when well formed, otherwise generated, and echoed on every response.

## Access levels
| level | who passes | security scheme |
|---|---|---|
| public | anyone | none |
| master | the master key | \`masterKey\` |
| user | a valid user token, any role | \`userToken\` |
| admin | a valid user token whose role is \`admin\` | \`userToken\` (an admin's) |
| basic | HTTP Basic e-mail and password of the user concerned | \`basic\` |
| master+basic | the master key (in \`access_token\`) and HTTP Basic | \`masterKey\` and \`basic\` |
| user+basic | the user's own token (in \`access_token\`) and their HTTP Basic | \`ownToken\` and \`basic\` |
| provider | a social provider's access token, passed through | \`providerToken\` |

Levels do not nest: the master key is not an admin token and an admin token is not the master key.
Operators can change the level of any route; this document shows the levels in force.

## Errors
Every error is \`application/problem+json\` (RFC 9457): \`type\`, \`title\`, \`status\`, \`detail\`, plus \`code\` (stable,
machine-readable) and \`requestId\`. Validation errors also carry \`param\` (the first failing field), \`message\` and \`errors\`
(every failure: \`{ param, message, rule }\`). 401 comes with \`WWW-Authenticate\`, 429 and 503 with \`Retry-After\`.
No error contains a stack trace, a secret or a database message.

## Listings
\`q\` (substring search, at most ${LISTING_LIMITS.maxQ} characters), \`page\` (from 1, at most ${LISTING_LIMITS.maxPage}: a fixed maximum),
\`limit\` (${LISTING_LIMITS.defaultLimit} by default, 1 to ${LISTING_LIMITS.maxLimit}), \`sort\` (comma list, \`-\` for descending), \`fields\` (comma list; \`id\` always comes back),
\`after\` (an opaque cursor from the previous answer's \`Link: <…>; rel="next"\`; not with \`page\`), \`count=false\` (no total), and
filters on the fields each listing names: \`<field>=<value>\` or \`<field>[<op>]=<value>\` (\`eq\`, \`ne\`, \`gt\`, \`gte\`, \`lt\`, \`lte\`, \`in\`, \`prefix\`, \`exists\`, by type).
An unknown parameter is a 400 naming it. A listing answers \`{ count, rows }\` with \`X-Total-Count\` and an RFC 8288 \`Link\` header.

## Conditional requests
\`GET\` of one resource answers a strong \`ETag\`; \`If-None-Match\` with it answers 304. \`PUT\`, \`PATCH\` and \`DELETE\` take \`If-Match\`:
when it doesn't match the current \`ETag\`, 412 \`precondition_failed\` and nothing changes.

## Operations
The gateway answers these itself; they are never forwarded to a service. \`GET /health\`: 200 while the process runs.
\`GET /ready\`: 200 \`{ status: "ready", checks }\` when every service behind the gateway answers, else 503 naming each
check (\`up\` or \`down\`); 503 \`stopping\` during a graceful stop. \`GET /metrics\` (Prometheus text) answers only
\`Authorization: Bearer <METRICS_TOKEN>\` when the operator has set that token; anyone else, as when it is not set, gets a 404.`;
