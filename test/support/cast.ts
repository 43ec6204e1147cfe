/**
 * The people of a scenario: signed up by the master key with a form body, signed in with Basic +
 * the master key, both replies checked for shape on the way.
 */
import { uniqueSuffix } from '@restgate/shared/testing';
import { signIn, signUp, type UserInput } from './actors';
import type { Client } from './http';
import { expectJson } from './replies';
import { authResult, userFullView } from './shapes';
import type { TestStack } from './stack';

export interface Member {
  id: string;
  token: string;
  credentials: UserInput;
  /** The full view sign-up answered. */
  view: Record<string, any>;
}

/**
 * Signs up `alias.<marker>@example.test` (so a listing's `q=<marker>` finds exactly a scenario's
 * people) with the given role, signs in, and checks both answers.
 */
export async function aMember(
  api: Client,
  stack: TestStack,
  alias: string,
  options: { marker: string; role?: 'user' | 'admin' },
): Promise<Member> {
  const credentials = { email: `${alias}.${options.marker}@example.test`, password: `pw-${uniqueSuffix()}` };
  const role = options.role ?? 'user';
  const created = expectJson(await signUp(api, stack, credentials, { role }), 201, userFullView, 'sign-up view');
  expect(created).toMatchObject({ email: credentials.email, role, name: `${alias}.${options.marker}` });
  const signedIn = expectJson(await signIn(api, stack, credentials), 201, authResult, 'sign-in result');
  expect(signedIn.user).toEqual(created);
  return { id: created.id, token: signedIn.token, credentials, view: created };
}
