import { createHmac } from 'node:crypto';
import Joi from 'joi';
import { socialErrors } from './social-errors';
import { assertOk, getJson, parseReply, providerUrl, type ProviderReply } from './provider-http';
import type { ProviderProfile, SocialProvider } from './social-provider';

const LABEL = 'Facebook';

interface FacebookMe {
  id: string;
  name?: string;
  email?: string;
  picture?: { data?: { url?: string; is_silhouette?: boolean } };
}

const meSchema = Joi.object<FacebookMe>({
  id: Joi.string().required(),
  name: Joi.string().allow(''),
  email: Joi.string().allow(''),
  picture: Joi.object({ data: Joi.object({ url: Joi.string(), is_silhouette: Joi.boolean() }) }),
});

const debugSchema = Joi.object<{ data: { app_id?: string; is_valid: boolean } }>({
  data: Joi.object({ app_id: Joi.string(), is_valid: Joi.boolean().required() }).required(),
});

/** Graph API error codes that mean "slow down" (application, user, page and custom rate limits). */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613]);

/**
 * Facebook's Graph API: `me?fields=id,name,email,picture`. With the app's id and secret, every call
 * carries `appsecret_proof` (HMAC-SHA256 of the token with the app secret), and `debug_token`,
 * asked with the app access token, must say the token is valid and was issued to this app;
 * otherwise a token any other Facebook app obtained would sign in here.
 *
 * Facebook returns `email` only when the account has a confirmed address, so a present e-mail
 * counts as verified (Facebook offers no per-address flag).
 */
export function createFacebookProvider(options: { apiUrl: string; app?: { id: string; secret: string } }): SocialProvider {
  const { app } = options;
  return {
    name: 'facebook',
    label: LABEL,
    async fetchProfile(accessToken, signal): Promise<ProviderProfile> {
      const proof: Record<string, string> = app
        ? { appsecret_proof: createHmac('sha256', app.secret).update(accessToken).digest('hex') }
        : {};
      const get = (path: string, query: Record<string, string>) =>
        getJson({ label: LABEL, url: providerUrl(options.apiUrl, path, query), signal });
      const [debugReply, meReply] = await Promise.all([
        app ? get('debug_token', { input_token: accessToken, access_token: `${app.id}|${app.secret}` }) : undefined,
        get('me', { fields: 'id,name,email,picture', access_token: accessToken, ...proof }),
      ]);
      if (app && debugReply) assertIssuedTo(app.id, debugReply);
      assertGraphOk(meReply);
      const me = parseReply(meSchema, meReply, LABEL, 'profile');
      const picture = me.picture?.data;
      return {
        id: me.id,
        email: me.email || undefined,
        emailVerified: Boolean(me.email),
        name: me.name || undefined,
        // The silhouette is Facebook's placeholder: the Gravatar default serves better.
        picture: picture?.url && !picture.is_silhouette ? picture.url : undefined,
      };
    },
  };
}

/**
 * `debug_token` answers 200 with `is_valid: false` for a bad user token; an error status means it
 * refused our app access token, which is our configuration's fault, not the user's (502).
 */
function assertIssuedTo(appId: string, reply: ProviderReply): void {
  assertOk(reply, LABEL, []);
  const { data } = parseReply(debugSchema, reply, LABEL, 'debug_token answer');
  if (!data.is_valid) throw socialErrors.tokenRejected(LABEL);
  if (data.app_id !== appId) throw socialErrors.tokenForAnotherApp(LABEL);
}

/** Graph answers a bad token with 400 (OAuthException, code 190); rate limits come as 4xx too. */
function assertGraphOk(reply: ProviderReply): void {
  const code = (reply.body as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (typeof code === 'number' && RATE_LIMIT_CODES.has(code)) throw socialErrors.failed(LABEL, `rate limited (code ${code})`);
  assertOk(reply, LABEL, [400, 401, 403]);
}
