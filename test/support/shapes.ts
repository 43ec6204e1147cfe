/**
 * The shapes of the views and errors at the gateway (the API's contract), as joi schemas. Unknown keys fail:
 * a view must not grow a `password`, and an error must not carry a `stack`.
 */
import Joi from 'joi';
import type { Reply } from './http';

const objectId = Joi.string().pattern(/^[0-9a-f]{24}$/);
const timestamp = Joi.string().isoDate();

export const userFullView = Joi.object({
  id: objectId,
  name: Joi.string(),
  picture: Joi.string().uri(),
  email: Joi.string().email({ tlds: false }),
  role: Joi.string().valid('user', 'admin'),
  emailVerified: Joi.boolean(),
  createdAt: timestamp,
});

/** GET /users/me: the full view and whether multi-factor sign-in is on. */
export const ownUserView = userFullView.keys({ mfa: Joi.object({ totp: Joi.boolean() }) });

export const authResult = Joi.object({
  token: Joi.string().pattern(/^[\w-]+\.[\w-]+\.[\w-]+$/),
  // 256 bits, base64url.
  refreshToken: Joi.string().pattern(/^[\w-]{43}$/),
  expiresIn: Joi.number().integer().min(1),
  user: userFullView,
});

export const articleView = Joi.object({
  id: objectId,
  title: Joi.string(),
  content: Joi.string().allow(''),
  user: Joi.object({ id: objectId }),
  createdAt: timestamp,
  updatedAt: timestamp,
});

const fieldError = Joi.object({ param: Joi.string(), message: Joi.string(), rule: Joi.string() });

export const problem = Joi.object({
  type: Joi.string(),
  title: Joi.string(),
  status: Joi.number().integer().min(400).max(599),
  detail: Joi.string(),
  code: Joi.string().pattern(/^[a-z][a-z0-9_]*$/),
  requestId: Joi.string(),
  param: Joi.string().optional(),
  message: Joi.string().optional(),
  errors: Joi.array().items(fieldError).min(1).optional(),
  // 429: which limit refused the request.
  limit: Joi.string().optional(),
  // 401 mfa_required of a sign-in: the credential of POST /auth/mfa.
  mfaToken: Joi.string().optional(),
});

export const validationProblem = problem.keys({
  param: Joi.string().required(),
  message: Joi.string().required(),
  errors: Joi.array().items(fieldError).min(1).required(),
});

/** Fails with joi's message and the value when `value` does not have `schema`'s shape. */
export function expectShape(value: unknown, schema: Joi.Schema, what = 'value'): void {
  const { error } = schema.validate(value, { presence: 'required', convert: false, abortEarly: false });
  if (error) throw new Error(`${what} does not have the expected shape: ${error.message}\n${JSON.stringify(value, null, 2)}`);
}

/**
 * Asserts a problem+json reply: status, content type, body shape (validation problems with
 * `param`, `message`, `errors`), `status` and `requestId` matching the response.
 */
export function expectProblem(reply: Reply, status: number, expected: { code?: string; param?: string } = {}): void {
  const summary = `${reply.status} ${reply.text.slice(0, 500)}`;
  if (reply.status !== status) throw new Error(`expected status ${status}, got ${summary}`);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const isValidation = reply.body?.code === 'validation_failed';
  expectShape(reply.body, isValidation ? validationProblem : problem, 'problem body');
  expect(reply.body.status).toBe(status);
  expect(reply.body.requestId).toBe(reply.headers.get('x-request-id'));
  if (expected.code !== undefined) expect(reply.body.code).toBe(expected.code);
  if (expected.param !== undefined) expect(reply.body.param).toBe(expected.param);
  expect(reply.text).not.toMatch(/\bat .+\.(js|ts):\d+/); // no stack trace
}
