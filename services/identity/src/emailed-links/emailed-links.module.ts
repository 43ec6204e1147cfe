import type { AuditTrail } from '../audit/audit-trail';
import type { Logger } from '@restgate/shared';
import type { RouteDef } from '@restgate/shared/http';
import type { IdentityApiOptions } from '../accounts/api-fragments';
import { emailVerificationApi, passwordResetApi } from './emailed-links.api';
import { emailVerificationRoutes } from './email-verification.routes';
import { passwordResetRoutes } from './password-reset.routes';
import type { Db } from 'mongodb';
import type { IdentityConfig } from '../config';
import { EMAIL_VERIFICATIONS_COLLECTION, MongoLinkTokenRepository, PASSWORD_RESETS_COLLECTION } from './link-token.repository';
import type { LinkMailCap } from './emailed-link';
import { EMAIL_VERIFICATION, VERIFICATION_TTL_SECONDS, type EmailVerificationDeps } from './email-verification';
import type { UserRepository } from '../accounts/accounts-deps';
import type { PasswordHasher } from '../accounts/password-hasher.port';
import { PASSWORD_RESET, type PasswordResetDeps } from './password-reset';
import type { SessionDeps } from '../accounts/sessions';
import type { UserRecord } from '../accounts/user';

export type EmailedLinksConfig = Pick<
  IdentityConfig,
  'RESET_LINK_ORIGINS' | 'RESET_DEFAULT_PAGE' | 'RESET_TOKEN_TTL_SECONDS' | 'EMAIL_VERIFICATION_PAGE'
>;

export interface EmailedLinks {
  passwordResets: PasswordResetDeps & { links: MongoLinkTokenRepository };
  emailVerifications: EmailVerificationDeps & { links: MongoLinkTokenRepository };
  /** Every purpose's repository: the outbox reads their collections, housekeeping empties them. */
  repositories: MongoLinkTokenRepository[];
  /** The routes of both purposes: resets, then verifications. */
  routes(options: IdentityApiOptions): RouteDef[];
}

/**
 * The e-mailed links, one purpose each: password resets and e-mail verifications. The broker, the
 * outbox relay that publishes their mails and the clean-up of expired rows are the service's
 * (identity.ts); `mailQueued` wakes that relay.
 */
export function wireEmailedLinks(parts: {
  config: EmailedLinksConfig;
  db: Db;
  users: UserRepository;
  hasher: PasswordHasher;
  /** A reset ends the user's sessions. */
  sessions: Pick<SessionDeps, 'sessions' | 'revocations'>;
  /** Mails per address and purpose (abuse.wiring.ts). */
  mailCaps: { passwordReset: LinkMailCap; emailVerification: LinkMailCap };
  mailQueued: () => void;
  /** What else a completed reset ends (MFA's pending sign-ins, its wrong-code count). */
  afterReset?: (before: UserRecord) => Promise<void>;
  audit: AuditTrail;
  logger: Logger;
}): EmailedLinks {
  const { config, users, mailQueued, logger: log } = parts;
  // Resets have always had a TTL index where the server has them; verifications never had one.
  const resets = new MongoLinkTokenRepository(parts.db, PASSWORD_RESETS_COLLECTION, { ttlIndex: true });
  const verifications = new MongoLinkTokenRepository(parts.db, EMAIL_VERIFICATIONS_COLLECTION, { ttlIndex: false });
  const passwordResets: EmailedLinks['passwordResets'] = {
    purpose: PASSWORD_RESET,
    users,
    links: resets,
    ttlSeconds: config.RESET_TOKEN_TTL_SECONDS,
    mailCap: parts.mailCaps.passwordReset,
    mailQueued,
    log,
    audit: parts.audit,
    hasher: parts.hasher,
    sessions: parts.sessions,
    pages: { linkOrigins: config.RESET_LINK_ORIGINS, defaultPage: config.RESET_DEFAULT_PAGE },
    afterReset: parts.afterReset,
  };
  const emailVerifications: EmailedLinks['emailVerifications'] = {
    purpose: EMAIL_VERIFICATION,
    users,
    links: verifications,
    ttlSeconds: VERIFICATION_TTL_SECONDS,
    mailCap: parts.mailCaps.emailVerification,
    mailQueued,
    log,
    audit: parts.audit,
    page: config.EMAIL_VERIFICATION_PAGE,
  };
  return {
    passwordResets,
    emailVerifications,
    repositories: [resets, verifications],
    routes: (options) => [
      ...passwordResetRoutes(passwordResets, passwordResetApi(options), options),
      ...emailVerificationRoutes(emailVerifications, emailVerificationApi(options)),
    ],
  };
}
