import type { RouteDef } from '@restgate/shared/http';
import { authApi, emailVerificationApi, mfaApi, passwordResetApi, socialApi, userApi } from '../api';
import type { EmailVerificationDeps } from '../domain/email-verification';
import type { IdentityDeps } from '../domain/identity-deps';
import type { PasswordResetDeps } from '../domain/password-reset';
import type { SocialLogin } from '../domain/social/social-login';
import { authRoutes } from './auth.routes';
import { emailVerificationRoutes } from './email-verification.routes';
import { mfaRoutes } from './mfa.routes';
import { passwordResetRoutes } from './password-reset.routes';
import { socialRoutes } from './social.routes';
import { userRoutes } from './user.routes';

/** The identity service's route table with its default levels (before `ROUTE_POLICY`), from src/api.ts. */
export function identityRoutes(
  deps: IdentityDeps,
  options: {
    passwordMinLength: number;
    social?: SocialLogin;
    passwordResets: PasswordResetDeps;
    emailVerifications: EmailVerificationDeps;
  },
): RouteDef[] {
  return [
    ...authRoutes(deps, authApi),
    ...socialRoutes(deps, options.social, socialApi),
    ...userRoutes(deps, userApi(options)),
    ...mfaRoutes(deps, mfaApi(options)),
    ...passwordResetRoutes(options.passwordResets, passwordResetApi(options), options),
    ...emailVerificationRoutes(options.emailVerifications, emailVerificationApi(options)),
  ];
}
