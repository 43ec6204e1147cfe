import type { SessionRecord, SignedIn } from './sessions';
import type { Role, UserRecord } from './user';

/** What anyone may see of a user. */
export interface PublicUserView {
  id: string;
  name: string;
  picture: string;
}

export interface FullUserView extends PublicUserView {
  email: string;
  role: Role;
  emailVerified: boolean;
  createdAt: string;
}

export function publicView(user: Pick<UserRecord, 'id' | 'name' | 'picture'>): PublicUserView {
  return { id: user.id, name: user.name, picture: user.picture };
}

/** Everything but the password and what is known of it, which never leave the service. */
export function fullView(user: Omit<UserRecord, 'passwordHash' | 'passwordProven'>): FullUserView {
  return {
    ...publicView(user),
    email: user.email,
    role: user.role,
    emailVerified: user.emailVerified,
    createdAt: user.createdAt.toISOString(),
  };
}

/** Whose an e-mailed link is: enough for a page or a client to say "for the account …". */
export function linkUserView(user: Pick<UserRecord, 'id' | 'name' | 'picture' | 'email'>): PublicUserView & { email: string } {
  return { ...publicView(user), email: user.email };
}

/** A new session's tokens and its user. */
export function signedInView({ user, ...tokens }: SignedIn): Omit<SignedIn, 'user'> & { user: FullUserView } {
  return { ...tokens, user: fullView(user) };
}

/** A session as its user sees it in the listing: nothing of its tokens or credentials. */
export function sessionView({ id, createdAt, lastUsedAt, userAgent }: SessionRecord) {
  return { id, createdAt, lastUsedAt, userAgent };
}
