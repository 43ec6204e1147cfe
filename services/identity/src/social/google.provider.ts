import Joi from 'joi';
import { socialErrors } from './social-errors';
import { assertOk, getJson, parseReply, providerUrl } from './provider-http';
import type { ProviderProfile, SocialProvider } from './social-provider';

const LABEL = 'Google';

interface GoogleUserInfo {
  sub: string;
  name?: string;
  picture?: string;
  email?: string;
  email_verified?: boolean;
}

const userInfoSchema = Joi.object<GoogleUserInfo>({
  sub: Joi.string().required(),
  name: Joi.string().allow(''),
  picture: Joi.string().allow(''),
  email: Joi.string().allow(''),
  // userinfo sends a boolean; accept the string form tokeninfo uses as well.
  email_verified: Joi.boolean(),
});

const tokenInfoSchema = Joi.object<{ aud?: string; azp?: string }>({ aud: Joi.string(), azp: Joi.string() });

/**
 * Google's OAuth 2.0 endpoints: `/oauth2/v3/userinfo` with the token as Bearer. With client ids
 * configured, `/oauth2/v3/tokeninfo` must name one of them as the token's audience (`aud`, or the
 * authorized party `azp`); otherwise a token any other Google client obtained would sign in here.
 */
export function createGoogleProvider(options: { apiUrl: string; clientIds: string[] }): SocialProvider {
  return {
    name: 'google',
    label: LABEL,
    async fetchProfile(accessToken, signal): Promise<ProviderProfile> {
      const checkAudience = options.clientIds.length > 0;
      const [tokenInfoReply, userInfoReply] = await Promise.all([
        // Google documents tokeninfo with the token in the query string.
        checkAudience
          ? getJson({ label: LABEL, url: providerUrl(options.apiUrl, 'oauth2/v3/tokeninfo', { access_token: accessToken }), signal })
          : undefined,
        getJson({
          label: LABEL,
          url: providerUrl(options.apiUrl, 'oauth2/v3/userinfo'),
          headers: { authorization: `Bearer ${accessToken}` },
          signal,
        }),
      ]);
      if (tokenInfoReply) {
        assertOk(tokenInfoReply, LABEL, [400, 401]);
        const { aud, azp } = parseReply(tokenInfoSchema, tokenInfoReply, LABEL, 'tokeninfo answer');
        if (!options.clientIds.some((id) => id === aud || id === azp)) throw socialErrors.tokenForAnotherApp(LABEL);
      }
      assertOk(userInfoReply, LABEL, [400, 401]);
      const info = parseReply(userInfoSchema, userInfoReply, LABEL, 'userinfo answer');
      return {
        id: info.sub,
        email: info.email || undefined,
        emailVerified: Boolean(info.email) && info.email_verified === true,
        name: info.name || undefined,
        picture: info.picture || undefined,
      };
    },
  };
}
