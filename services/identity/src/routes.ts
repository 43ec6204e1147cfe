import type { RouteDef } from '@restgate/shared/http';
import { authApi, emailVerificationApi, mfaApi, passwordResetApi, socialApi, userApi } from './api';
import type { EmailVerificationDeps } from './emailed-links/email-verification';
import type { IdentityDeps } from './accounts/accounts-deps';
import type { PasswordResetDeps } from './emailed-links/password-reset';
import type { SocialLogin } from './social/social-login';
import { authRoutes } from './accounts/auth.routes';
import { emailVerificationRoutes } from './emailed-links/email-verification.routes';
import { mfaRoutes } from './mfa/mfa.routes';
import { passwordResetRoutes } from './emailed-links/password-reset.routes';
import { socialRoutes } from './social/social.routes';
import { userRoutes } from './accounts/user.routes';

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
