import express, { type Request, type RequestHandler } from 'express';
import { assertSupportedBody, errors } from '@restgate/shared';
import { ACCESS_TOKEN, countTopLevelKeys, takeAccessTokens, takeJsonAccessToken } from './credentials';

/**
 * Reads the whole body as bytes, whatever it is, so the gateway can find `access_token` in it:
 * 415 for a body that is neither a form nor JSON (before reading it), 413 past `limit`
 * (body-parser errors map onto the catalogue in shared's normalizeError). Compressed bodies are
 * refused (415) rather than inflated: the limit then bounds what the services receive as well.
 */
export function readBody(limit: string): RequestHandler[] {
  return [assertSupportedBody, express.raw({ type: () => true, limit, inflate: false })];
}

/** The bytes read by `readBody`, or undefined when the request had no body. */
export function rawBody(req: Request): Buffer | undefined {
  return Buffer.isBuffer(req.body) ? req.body : undefined;
}

function assertUtf8Json(req: Request): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw errors.unsupportedMediaType();
}

/** A form body that parses as a JSON object or array is JSON sent with the wrong type. */
function assertNotJson(raw: Buffer): void {
  const text = raw.toString('utf8').trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return; // a form whose first key starts with a brace, however odd: it is parsed as a form
  }
  if (typeof parsed === 'object' && parsed !== null) throw errors.jsonSentAsForm();
}

/**
 * The body to forward without `access_token`, and the tokens it held. Forms are edited as text
 * (other pairs keep their exact bytes); JSON is re-serialized only when it held a token.
 */
export function stripBodyTokens(req: Request): { tokens: string[]; body: Buffer | undefined } {
  const raw = rawBody(req);
  if (!raw || raw.length === 0) return { tokens: [], body: raw };
  if (req.is('application/x-www-form-urlencoded')) {
    // latin1 maps each byte to one char and back, so untouched pairs survive even if not UTF-8.
    assertNotJson(raw);
    const { tokens, rest } = takeAccessTokens(raw.toString('latin1'));
    return { tokens, body: tokens.length ? Buffer.from(rest, 'latin1') : raw };
  }
  // Only JSON is left: assertSupportedBody let nothing else through.
  const parsed = parseJsonBody(req, raw);
  const { tokens, rest } = takeJsonAccessToken(parsed);
  return { tokens, body: rest === parsed ? raw : Buffer.from(JSON.stringify(rest), 'utf8') };
}

function parseJsonBody(req: Request, raw: Buffer): unknown {
  assertUtf8Json(req);
  const text = raw.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw errors.malformedBody('The JSON body could not be parsed.');
  }
  if (countTopLevelKeys(text, ACCESS_TOKEN) > 1) throw errors.credentialAmbiguous();
  return parsed;
}

/**
 * On provider routes the body goes to identity untouched, and its JSON parser would keep the
 * last of two `access_token` keys: the gateway refuses such a body here, as on every other route.
 */
export function assertSingleBodyToken(req: Request): void {
  const raw = rawBody(req);
  if (raw && raw.length > 0 && req.is('application/json')) parseJsonBody(req, raw);
}
