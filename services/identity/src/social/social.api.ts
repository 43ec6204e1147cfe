/**
 * Social sign-in's routes: `POST /auth/<provider>`, one per provider.
 * Data only: neither connects nor starts anything (the gateway reads the specs through src/api.ts).
 */
import { defineSpec } from '@restgate/shared/http';
import { sessionTokensSchema } from '../accounts/session.schemas';
import { identityCodes as E } from '../errors';
import { providerTokenBody, providerTokenQuery } from './social.schemas';

/** What enabling each provider takes, besides naming it in SOCIAL_PROVIDERS. */
const SOCIAL_SETUP: Record<string, string> = {
  facebook:
    'Set `FACEBOOK_APP_ID` and `FACEBOOK_APP_SECRET` (your Facebook app, with Facebook Login) so that only tokens issued to your app sign in; the token needs `email` and `public_profile`.',
  github:
    "Set `GITHUB_CLIENT_ID` and `GITHUB_CLIENT_SECRET` (your GitHub OAuth app) so that only tokens issued to your app sign in (GitHub's token check); the token needs the `user:email` scope.",
  google:
    'Set `GOOGLE_CLIENT_ID` to your OAuth client id(s) so that only tokens issued to them sign in; the token needs the `openid email profile` scopes.',
};

const socialSpec = (provider: string, label: string) =>
  defineSpec({
    method: 'post',
    path: `/auth/${provider}` as const,
    level: 'provider',
    noStore: true,
    tags: ['auth'],
    summary: `Sign in with a ${label} access token: the linked user, else the user with the e-mail ${label} says is verified, else a new user.`,
    description: `Off until the identity service's \`SOCIAL_PROVIDERS\` names \`${provider}\` (a 404 \`route_not_found\` meanwhile). ${SOCIAL_SETUP[provider] ?? ''}`,
    schemas: { body: providerTokenBody, query: providerTokenQuery },
    responses: {
      201: { description: 'A new session, as POST /auth gives.', schema: sessionTokensSchema },
      400: { errors: [E.credential_ambiguous, E.validation_failed] },
      401: {
        description: `The provider is ${label}. A user with multi-factor sign-in on gets \`mfa_required\` with an \`mfaToken\` for POST /auth/mfa, as POST /auth answers.`,
        errors: [E.credential_missing, E.invalid_token, E.provider_token_rejected, E.provider_token_wrong_app, E.mfa_required],
      },
      404: { description: `${label} sign-in is not enabled (\`SOCIAL_PROVIDERS\`).`, errors: [E.route_not_found] },
      409: { errors: [E.provider_already_linked, E.account_email_unverified, E.account_password_unproven] },
      422: { errors: [E.provider_email_missing, E.provider_email_unverified] },
      502: { errors: [E.provider_failed, E.provider_unreachable] },
      504: { errors: [E.provider_timeout] },
    },
  });

/** `POST /auth/<provider>`: a provider that SOCIAL_PROVIDERS does not enable is not served (404). */
export const socialApi = {
  signInWithFacebook: socialSpec('facebook', 'Facebook'),
  signInWithGithub: socialSpec('github', 'GitHub'),
  signInWithGoogle: socialSpec('google', 'Google'),
};
