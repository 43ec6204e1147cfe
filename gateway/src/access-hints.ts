import { errors, problem, sharedErrorCatalogue as E, type CatalogueEntry, type Principal } from '@restgate/shared';
import { takesBasic, type AccessLevel, type Authorization } from '@restgate/shared/http';

/**
 * The routes that take HTTP Basic (sign-in, a password change) are where clients most often mix
 * up credentials: Basic sent without the master key, or a token sent where an e-mail and password
 * are wanted. The gateway sees both halves, so it names the missing one instead of answering the
 * generic "needs a credential" or the service's "wrong e-mail or password".
 * Runs after the presented token (if any) has been verified, before the level is checked.
 */
/** For the levels that take a credential besides Basic: what that credential is, what its absence is called, and who has it. */
const PARTNERS: Partial<Record<AccessLevel, { kind: Principal['kind']; name: string; missing: CatalogueEntry; where: string }>> = {
  'master+basic': { kind: 'master', name: 'the master key', missing: E.master_key_missing, where: "the user's e-mail and password" },
  'user+basic': {
    kind: 'user',
    name: "the user's token (from POST /auth)",
    missing: E.user_token_missing,
    where: 'their e-mail and password',
  },
};

export function assertCredentialKinds(level: AccessLevel, principal: Principal, authorization: Authorization | undefined): void {
  const hasBasic = authorization?.scheme === 'basic';
  const partner = PARTNERS[level];
  if (partner && principal.kind === 'anonymous') {
    if (hasBasic) {
      throw problem(partner.missing, {
        detail: `${capitalized(partner.name)} is missing: send it as access_token in the query string or the body (the Authorization header already carries the HTTP Basic e-mail and password).`,
      });
    }
    throw errors.unauthorized(
      `This route needs ${partner.name} as access_token (query string or body) and ${partner.where} as HTTP Basic.`,
      false,
    );
  }
  if (takesBasic(level) && !hasBasic && (!partner || principal.kind === partner.kind)) {
    throw problem(E.basic_required, {
      detail:
        authorization?.scheme === 'bearer'
          ? "This route needs HTTP Basic (the user's e-mail and password in Authorization: Basic), not a Bearer token; a token goes as access_token."
          : undefined,
    });
  }
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
