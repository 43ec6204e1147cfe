import Joi from 'joi';
import { assertOk, getJson, parseReply, providerUrl, type ProviderReply } from './provider-http';
import { socialErrors } from './social-errors';
import type { ProviderProfile, SocialProvider } from './social-provider';

const LABEL = 'GitHub';

const userSchema = Joi.object<{ id: number; login: string; name?: string | null; avatar_url?: string | null }>({
  id: Joi.number().integer().required(),
  login: Joi.string().required(),
  name: Joi.string().allow('', null),
  avatar_url: Joi.string().allow('', null),
});

const emailsSchema = Joi.array()
  .items(Joi.object({ email: Joi.string().required(), primary: Joi.boolean().required(), verified: Joi.boolean().required() }))
  .required() as Joi.ArraySchema<Array<{ email: string; primary: boolean; verified: boolean }>>;

const checkSchema = Joi.object<{ app?: { client_id?: string } }>({ app: Joi.object({ client_id: Joi.string() }) });

/**
 * GitHub's REST API: `GET /user` and `GET /user/emails`, the token in the Authorization header
 * (GitHub no longer accepts it in the query string) and a User-Agent (GitHub refuses requests
 * without one). The e-mail is the primary one, and counts only when GitHub says it is verified.
 *
 * With the OAuth app's client id and secret, GitHub's token check (`POST
 * /applications/{client_id}/token`, HTTP Basic with the app's credentials) must find the token
 * issued to this app: otherwise a token any other GitHub app obtained would sign in here.
 */
export function createGitHubProvider(options: {
  apiUrl: string;
  userAgent?: string;
  app?: { clientId: string; clientSecret: string };
}): SocialProvider {
  const { app } = options;
  const githubHeaders = (authorization: string) => ({
    accept: 'application/vnd.github+json',
    authorization,
    'user-agent': options.userAgent ?? 'restgate',
    'x-github-api-version': '2022-11-28',
  });
  return {
    name: 'github',
    label: LABEL,
    async fetchProfile(accessToken, signal): Promise<ProviderProfile> {
      const get = (path: string) =>
        getJson({ label: LABEL, url: providerUrl(options.apiUrl, path), signal, headers: githubHeaders(`Bearer ${accessToken}`) });
      const check = (id: string, secret: string) =>
        getJson({
          label: LABEL,
          method: 'POST',
          url: providerUrl(options.apiUrl, `applications/${encodeURIComponent(id)}/token`),
          signal,
          headers: githubHeaders(`Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`),
          json: { access_token: accessToken },
        });
      const [checkReply, userReply, emailsReply] = await Promise.all([
        app ? check(app.clientId, app.clientSecret) : undefined,
        get('user'),
        get('user/emails'),
      ]);
      if (app && checkReply) assertIssuedTo(app.clientId, checkReply);
      assertOk(userReply, LABEL, [401]);
      const user = parseReply(userSchema, userReply, LABEL, 'user');
      const primary = primaryEmail(emailsReply);
      return {
        id: String(user.id),
        email: primary?.email,
        emailVerified: primary?.verified ?? false,
        name: user.name || user.login,
        picture: user.avatar_url ?? undefined,
      };
    },
  };
}

/**
 * The primary address. A token without the `user:email` scope gets 403/404 here, which is not a
 * bad token: the profile then has no e-mail (enough for an already linked account).
 */
function primaryEmail(reply: ProviderReply): { email: string; verified: boolean } | undefined {
  if (reply.status === 403 || reply.status === 404) return undefined;
  assertOk(reply, LABEL, [401]);
  return parseReply(emailsSchema, reply, LABEL, 'e-mail list').find((entry) => entry.primary);
}

/**
 * The token check answers 404 for a token that is not this app's (unknown, revoked, or another
 * app's: GitHub does not say which) and 200 with the app for one that is. 401 means GitHub refused
 * our client id and secret: our configuration's fault, not the user's (502).
 */
function assertIssuedTo(clientId: string, reply: ProviderReply): void {
  if (reply.status === 404 || reply.status === 422) throw socialErrors.tokenForAnotherApp(LABEL);
  assertOk(reply, LABEL, []);
  const { app } = parseReply(checkSchema, reply, LABEL, 'token check');
  if (app?.client_id !== undefined && app.client_id !== clientId) throw socialErrors.tokenForAnotherApp(LABEL);
}
