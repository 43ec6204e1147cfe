import Joi from 'joi';
import { assertOk, getJson, parseReply, providerUrl, type ProviderReply } from './provider-http';
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

/**
 * GitHub's REST API: `GET /user` and `GET /user/emails`, the token in the Authorization header
 * (GitHub no longer accepts it in the query string) and a User-Agent (GitHub refuses requests
 * without one). The e-mail is the primary one, and counts only when GitHub says it is verified.
 */
export function createGitHubProvider(options: { apiUrl: string; userAgent?: string }): SocialProvider {
  return {
    name: 'github',
    label: LABEL,
    async fetchProfile(accessToken, signal): Promise<ProviderProfile> {
      const get = (path: string) =>
        getJson({
          label: LABEL,
          url: providerUrl(options.apiUrl, path),
          signal,
          headers: {
            accept: 'application/vnd.github+json',
            authorization: `Bearer ${accessToken}`,
            'user-agent': options.userAgent ?? 'restgate',
            'x-github-api-version': '2022-11-28',
          },
        });
      const [userReply, emailsReply] = await Promise.all([get('user'), get('user/emails')]);
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
