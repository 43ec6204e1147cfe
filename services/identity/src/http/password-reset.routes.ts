import { defineRoute, type RouteDef } from '@restgate/shared';
import { completePasswordReset } from '../domain/complete-password-reset';
import { getPasswordReset } from '../domain/get-password-reset';
import type { PasswordResetDeps } from '../domain/password-reset';
import { requestPasswordReset } from '../domain/request-password-reset';
import { passwordResetSchemas, passwordResetViewSchema, resetAcceptedSchema } from './password-reset.schemas';
import { fullUserSchema } from './user.schemas';

const tags = ['password resets'];
const deadToken = { description: 'The token is unknown, used, expired or malformed (one answer for all).' };

/** One body for every accepted request, registered e-mail or not. */
const ACCEPTED = { status: 'accepted', message: 'If the e-mail is registered, a link to reset the password is on its way to it.' } as const;

export function passwordResetRoutes(deps: PasswordResetDeps, options: { passwordMinLength: number }): RouteDef[] {
  const schemas = passwordResetSchemas(options);
  return [
    defineRoute({
      method: 'post',
      path: '/password-resets',
      level: 'master',
      tags,
      summary:
        'Ask for a password reset mail. Answered once the request is stored, before the mail goes out; the same answer whether or not the e-mail is registered.',
      schemas: { body: schemas.requestBody },
      responses: {
        202: { description: 'Accepted (also for an unknown e-mail, which gets no mail).', schema: resetAcceptedSchema },
        400: { description: 'Invalid body; `param` names the first failing field.' },
        401: { description: 'No credential.' },
        403: { description: 'A credential other than the master key.' },
      },
      handler: async ({ body, requestId, log }) => {
        await requestPasswordReset(deps, { email: body.email, link: body.link, requestId }, log);
        return { status: 202, body: ACCEPTED };
      },
    }),
    defineRoute<unknown, unknown, { token: string }>({
      method: 'get',
      path: '/password-resets/:token',
      level: 'public',
      tags,
      summary: 'Whose password a reset token resets (for the reset page).',
      responses: { 200: { description: 'The user the token belongs to.', schema: passwordResetViewSchema }, 404: deadToken },
      handler: async ({ params }) => ({ status: 200, body: await getPasswordReset(deps, params.token) }),
    }),
    defineRoute<{ password: string }, unknown, { token: string }>({
      method: 'put',
      path: '/password-resets/:token',
      level: 'public',
      tags,
      summary: "Set a new password with a reset token. The token is used up, and so are the user's other reset tokens.",
      schemas: { body: schemas.passwordBody },
      responses: {
        200: { description: 'The user.', schema: fullUserSchema },
        400: { description: 'Invalid password (`param: "password"`): the token stays valid.' },
        404: deadToken,
      },
      handler: async ({ params, body }) => ({ status: 200, body: await completePasswordReset(deps, params.token, body.password) }),
    }),
  ];
}
