import type { ObjectSchema } from 'joi';
import { Joi } from '@restgate/shared';
import { httpUrlSchema } from '@restgate/shared/http';
import { listingQuerySchema, type FilterSpec, type ListingQuery, type ListingSpec } from '@restgate/shared/data';
import type { CreateUserInput } from './create-user';
import type { ProfileChanges } from './update-profile';
import { PASSWORD_MAX_LENGTH } from './password-limits';

// NFKC first (joi normalises, then lower-cases and trims, before any rule): full-width and other
// compatibility look-alikes are the address they look like, never a second account.
const email = Joi.string()
  .normalize('NFKC')
  .trim()
  .lowercase()
  .max(254)
  // Reserved and private TLDs (.test, .internal) are real in tests and intranets.
  .email({ tlds: { allow: false } })
  .description('E-mail address; stored NFKC-normalised (full-width look-alikes become plain letters), trimmed and lower-cased; unique.')
  .example('ada@example.com');

const name = Joi.string().trim().min(1).max(128).description('Display name. Defaults to the part of the e-mail before "@".').example('Ada');

const picture = httpUrlSchema(2048).description('Picture URL (http or https). Defaults to the Gravatar identicon of the e-mail.');

function password(minLength: number) {
  return Joi.string()
    .min(minLength)
    .max(PASSWORD_MAX_LENGTH)
    .description(`At least ${minLength} characters, at most ${PASSWORD_MAX_LENGTH} (never truncated).`);
}

/** The filters of `GET /users`: role, emailVerified, createdAt, and e-mail (equality, prefix). */
export const USER_FILTERS: FilterSpec[] = [
  { name: 'role', type: 'enum', values: ['user', 'admin'] },
  // Stored in more than one way (older documents): the repository says how to match it.
  { name: 'emailVerified', type: 'boolean', value: Joi.boolean() },
  { name: 'createdAt', type: 'date' },
  {
    name: 'email',
    type: 'string',
    value: email,
    ops: ['eq', 'prefix'],
    opValues: { prefix: Joi.string().trim().lowercase().min(1).max(254).description('The start of an e-mail address.') },
  },
];

export const USER_LISTING: ListingSpec = {
  searchable: ['name', 'email'],
  sortable: ['name', 'email', 'role', 'createdAt'],
  // `id` may be named, as for articles (`fields=id,name`); it comes back anyway.
  selectable: ['id', 'name', 'picture', 'email', 'role', 'createdAt'],
  defaultSort: '-createdAt',
  filters: USER_FILTERS,
};

/** Request schemas. Unknown keys are dropped (so `email` or `password` sent to a profile update are ignored). */
export function userSchemas(options: { passwordMinLength: number }) {
  return {
    createUserBody: Joi.object<CreateUserInput>({
      email: email.required(),
      password: password(options.passwordMinLength).required(),
      name,
      picture,
      role: Joi.string().valid('user', 'admin').default('user').description('Role of the new user.'),
    }),
    profileBody: Joi.object<ProfileChanges>({
      name,
      picture,
      role: Joi.string()
        .valid('user', 'admin')
        .description(
          "An admin's to change (making an admin as ADMIN_SIGN_UP allows); the user's sessions then end. Ignored from anyone else.",
        ),
    }).description('PUT and PATCH alike: omitted fields stay. Other keys (email, password, a whole full view sent back) are ignored.'),
    passwordBody: Joi.object<{ password: string }>({
      password: password(options.passwordMinLength).required().description('The new password.'),
    }),
    listQuery: listingQuerySchema(USER_LISTING) as ObjectSchema<ListingQuery>,
  };
}

const id = Joi.string().hex().length(24).description('User id.');

/** Response shapes, for the API docs. */
export const publicUserSchema = Joi.object({ id, name: Joi.string(), picture: Joi.string() }).description('Public view of a user.');
export const fullUserSchema = publicUserSchema
  .keys({
    email: Joi.string(),
    role: Joi.string().valid('user', 'admin'),
    emailVerified: Joi.boolean().description(
      'Whether the owner of the e-mail address has proven it (the link in the verification mail, or a provider that verified it).',
    ),
    createdAt: Joi.string().isoDate(),
  })
  .description('Full view of a user.');
/** GET /users/me: the full view and the caller's second factors. */
export const ownUserSchema = fullUserSchema
  .keys({
    mfa: Joi.object({
      totp: Joi.boolean().description('Whether multi-factor sign-in with an authenticator app (TOTP) is on: sign-in then needs a code.'),
    }),
  })
  .description('Full view of the calling user, with its second factors.');
export const userListingSchema = Joi.object({ count: Joi.number().integer(), rows: Joi.array().items(fullUserSchema) });
