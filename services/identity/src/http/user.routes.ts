import { defineRoute, listingResult, type HttpMethod, type RouteDef } from '@restgate/shared';
import { changePassword } from '../domain/change-password';
import { createUser } from '../domain/create-user';
import { deleteUser } from '../domain/delete-user';
import { getOwnUser, getPublicUser } from '../domain/get-user';
import type { IdentityDeps } from '../domain/identity-deps';
import { listUsers } from '../domain/list-users';
import { updateProfile } from '../domain/update-profile';
import { parseBasicCredentials } from './basic-credentials';
import { fullUserSchema, publicUserSchema, userListingSchema, userSchemas } from './user.schemas';

const tags = ['users'];
const validation = { description: 'Invalid body or query; `param` names the first failing field.' };
const unauthorized = { description: 'No valid credential.' };
const forbidden = { description: 'A valid credential that may not do this.' };
const notFound = { description: 'No such user (also for a malformed id).' };

/**
 * The users table. `/users/me…` rows come before `/users/:id…` so "me" is never read as an id,
 * and they carry their own level in the policy table.
 */
export function userRoutes(deps: IdentityDeps, options: { passwordMinLength: number }): RouteDef[] {
  const schemas = userSchemas(options);

  const updateRoute = (method: HttpMethod, path: string) =>
    defineRoute<{ name?: string; picture?: string }, unknown, { id?: string }>({
      method,
      path,
      level: 'user',
      tags,
      summary: `${method === 'put' ? 'Replace' : 'Change'} a profile (name, picture); omitted fields stay. The user themself or an admin.`,
      schemas: { body: schemas.profileBody },
      responses: {
        200: { description: 'The updated user.', schema: fullUserSchema },
        400: validation,
        401: unauthorized,
        403: forbidden,
        404: notFound,
      },
      handler: async ({ principal, params, body }) => ({
        status: 200,
        body: await updateProfile(deps, principal, params.id ?? 'me', body),
      }),
    });

  const passwordRoute = (path: string) =>
    defineRoute<{ password: string }, unknown, { id?: string }>({
      method: 'put',
      path,
      level: 'basic',
      tags,
      summary: "Change a password, with that user's current e-mail and password as HTTP Basic.",
      schemas: { body: schemas.passwordBody },
      responses: {
        200: { description: 'The user.', schema: fullUserSchema },
        400: validation,
        401: { description: "Missing or wrong Basic credentials, or another user's id (one answer for both)." },
        429: { description: 'Too many wrong passwords for this account from this address (the back-off), or for this account overall.' },
        503: { description: 'Too many password checks in progress: try again after `Retry-After`.' },
      },
      handler: async ({ headers, params, body, clientAddress, signal }) => ({
        status: 200,
        body: await changePassword(deps, parseBasicCredentials(headers.authorization), params.id ?? 'me', body.password, { clientAddress, signal }),
      }),
    });

  return [
    defineRoute({
      method: 'post',
      path: '/users',
      level: 'master',
      tags,
      summary: 'Create a user.',
      schemas: { body: schemas.createUserBody },
      responses: {
        201: { description: 'The new user.', schema: fullUserSchema },
        400: validation,
        401: unauthorized,
        403: forbidden,
        409: { description: 'The e-mail is already registered (`param: "email"`).' },
      },
      handler: async ({ principal, body }) => ({ status: 201, body: await createUser(deps, principal, body) }),
    }),
    defineRoute({
      method: 'get',
      path: '/users',
      level: 'admin',
      tags,
      summary: 'List users: `q` searches name and e-mail.',
      schemas: { query: schemas.listQuery },
      responses: {
        200: { description: 'A page of users.', schema: userListingSchema },
        400: validation,
        401: unauthorized,
        403: forbidden,
      },
      handler: async ({ query, url }) => {
        const { rows, count } = await listUsers(deps, query);
        return listingResult(rows, count, query, url);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/users/me',
      level: 'user',
      tags,
      summary: 'The calling user.',
      responses: { 200: { description: 'The user.', schema: fullUserSchema }, 401: unauthorized, 403: forbidden, 404: notFound },
      handler: async ({ principal }) => ({ status: 200, body: await getOwnUser(deps, principal) }),
    }),
    updateRoute('put', '/users/me'),
    updateRoute('patch', '/users/me'),
    passwordRoute('/users/me/password'),
    defineRoute<unknown, unknown, { id: string }>({
      method: 'get',
      path: '/users/:id',
      level: 'public',
      tags,
      summary: 'A user, public view.',
      responses: { 200: { description: 'The user.', schema: publicUserSchema }, 404: notFound },
      handler: async ({ params }) => ({ status: 200, body: await getPublicUser(deps, params.id) }),
    }),
    updateRoute('put', '/users/:id'),
    updateRoute('patch', '/users/:id'),
    passwordRoute('/users/:id/password'),
    defineRoute<unknown, unknown, { id: string }>({
      method: 'delete',
      path: '/users/:id',
      level: 'admin',
      tags,
      summary: 'Delete a user.',
      responses: { 204: { description: 'Deleted.' }, 401: unauthorized, 403: forbidden, 404: notFound },
      handler: async ({ principal, params }) => {
        await deleteUser(deps, principal, params.id);
        return { status: 204 };
      },
    }),
  ];
}
