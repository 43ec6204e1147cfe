import { defineRoute, type RouteDef } from '@restgate/shared';
import type { IdentityDeps } from '../domain/identity-deps';
import { socialSignIn } from '../domain/social-sign-in';
import type { SocialLogin } from '../domain/social/social-login';
import { readProviderToken } from './provider-token';
import { providerTokenBody, providerTokenQuery } from './social.schemas';
import { signInSchema } from './user.schemas';

type TokenInput = { access_token?: string | string[] };

/** `POST /auth/<provider>` for each enabled provider; a disabled one has no route (404). */
export function socialRoutes(deps: IdentityDeps, social: SocialLogin | undefined): RouteDef[] {
  if (!social) return [];
  return social.providers.map((provider) =>
    defineRoute<TokenInput, TokenInput>({
      method: 'post',
      path: `/auth/${provider.name}`,
      level: 'provider',
      tags: ['auth'],
      summary: `Sign in with a ${provider.label} access token: the linked user, else the user with the e-mail ${provider.label} says is verified, else a new user.`,
      schemas: { body: providerTokenBody, query: providerTokenQuery },
      responses: {
        201: { description: 'A user token and the user, as POST /auth gives.', schema: signInSchema },
        400: { description: 'The access token given in more than one place, or an invalid body or query.' },
        401: { description: `No access token, or ${provider.label} refused it, or it was issued to another app.` },
        409: { description: `The account with this e-mail is already linked to another ${provider.label} identity.` },
        422: {
          description: `${provider.label} shared no e-mail (\`provider_email_missing\`) or does not say it is verified (\`provider_email_unverified\`).`,
        },
        502: { description: `${provider.label} failed or could not be reached.` },
        504: { description: `${provider.label} did not answer in time.` },
      },
      handler: async ({ body, query, headers }) => {
        const token = readProviderToken({ body: body.access_token, query: query.access_token, authorization: headers.authorization });
        return { status: 201, body: await socialSignIn(deps, provider, token, social.timeoutMs) };
      },
    }),
  );
}
