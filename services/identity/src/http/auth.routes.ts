import { defineRoute, type RouteDef } from '@restgate/shared';
import type { IdentityDeps } from '../domain/identity-deps';
import { signIn } from '../domain/sign-in';
import { parseBasicCredentials } from './basic-credentials';
import { signInSchema } from './user.schemas';

export function authRoutes(deps: IdentityDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/auth',
      level: 'master+basic',
      tags: ['auth'],
      summary: 'Sign in: HTTP Basic e-mail and password (and the master key) give a user token.',
      responses: {
        201: { description: 'A user token and the user.', schema: signInSchema },
        401: {
          description: 'No master key, or missing or wrong Basic credentials (one answer for an unknown e-mail and a wrong password).',
        },
        403: { description: 'A credential other than the master key.' },
        429: { description: 'Too many wrong passwords for this account from this address (the back-off), or for this account overall.' },
        503: { description: 'Too many password checks in progress: try again after `Retry-After`.' },
      },
      handler: async ({ headers, clientAddress, signal }) => ({
        status: 201,
        body: await signIn(deps, parseBasicCredentials(headers.authorization), { clientAddress, signal }),
      }),
    }),
  ];
}
