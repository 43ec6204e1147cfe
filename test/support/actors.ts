/**
 * Builders and the three README calls, as a client of the gateway makes them (form bodies), plus
 * hand-made tokens for the failure cases.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { randomEmail, uniqueSuffix } from '@restgate/shared/testing';
import type { Client, Reply } from './http';
import type { TestStack } from './stack';

export interface UserInput {
  email: string;
  password: string;
}

export function aUser(overrides: Partial<UserInput> = {}): UserInput {
  return { email: randomEmail('contract'), password: `pw-${uniqueSuffix()}`, ...overrides };
}

export function anArticle(overrides: Partial<{ title: string; content: string }> = {}): { title: string; content: string } {
  return { title: `Title ${uniqueSuffix()}`, content: `Content ${uniqueSuffix()}`, ...overrides };
}

/** `curl …/users -d email=… -d password=… -d access_token=$MASTER_KEY` */
export function signUp(api: Client, stack: TestStack, user: UserInput, extra: Record<string, string> = {}): Promise<Reply> {
  return api.post('/users', { form: { email: user.email, password: user.password, access_token: stack.secrets.MASTER_KEY, ...extra } });
}

/** `curl -u email:password …/auth -d access_token=$MASTER_KEY` */
export function signIn(api: Client, stack: TestStack, user: UserInput): Promise<Reply> {
  return api.post('/auth', { basic: { user: user.email, password: user.password }, form: { access_token: stack.secrets.MASTER_KEY } });
}

/** Signs up and signs in a new user; returns the user's id and token. */
export async function aSignedInUser(
  api: Client,
  stack: TestStack,
  extra: Record<string, string> = {},
): Promise<{ id: string; token: string; user: UserInput }> {
  const user = aUser();
  const created = await signUp(api, stack, user, extra);
  if (created.status !== 201) throw new Error(`sign-up failed: ${created.status} ${created.text}`);
  const auth = await signIn(api, stack, user);
  if (auth.status !== 201) throw new Error(`sign-in failed: ${auth.status} ${auth.text}`);
  return { id: created.body.id, token: auth.body.token, user };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A token as identity would sign it, with any claim overridden (an `exp` in the past, say). */
export function aToken(stack: TestStack, userId: string, claims: Record<string, unknown> = {}, secret = stack.secrets.JWT_SECRET): string {
  const payload = {
    sub: userId,
    id: userId,
    role: 'user',
    sid: randomBytes(12).toString('hex'),
    iat: nowSeconds(),
    exp: nowSeconds() + 600,
    iss: stack.jwt.issuer,
    aud: stack.jwt.audience,
    jti: randomUUID(),
    ...claims,
  };
  return jwt.sign(payload, secret, { algorithm: 'HS256' });
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An unsigned token (`alg: none`) with otherwise valid claims. */
export function anUnsignedToken(stack: TestStack, userId: string): string {
  const payload = {
    sub: userId,
    id: userId,
    role: 'admin',
    iat: nowSeconds(),
    exp: nowSeconds() + 3600,
    iss: stack.jwt.issuer,
    aud: stack.jwt.audience,
    jti: randomUUID(),
  };
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`;
}

/** The same token with its payload changed (role admin) and the original signature kept. */
export function tampered(token: string): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
  return `${header}.${b64({ ...claims, role: 'admin' })}.${signature}`;
}
