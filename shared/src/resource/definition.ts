import type { AccessLevel } from '../http/routes';

/** The value types a resource field can have; each maps to a joi rule, a stored type and a view. */
export type FieldType = 'string' | 'text' | 'integer' | 'number' | 'boolean' | 'date' | 'email' | 'url' | 'enum';

/**
 * One field of a resource. `string` is trimmed and has 1 to `max` characters; `text` is kept as sent
 * and may be empty; `min`/`max` bound lengths for strings and values for numbers.
 */
export interface FieldDef {
  type: FieldType;
  required?: boolean;
  min?: number;
  max?: number;
  /** The allowed values of an `enum`. */
  values?: readonly string[];
  description?: string;
  example?: unknown;
  /** Listings filter on it unless false (`?name=…`, `?name[op]=…`, operators by type). */
  filter?: boolean;
  /** An index on it, for filters and sorts on a large collection. */
  index?: boolean;
  /** A rule (docs/api.md, "Rules"): who sees this field; it is left out of every view for anyone else. */
  read?: string;
  /** A rule: who may write this field; anyone else sending it gets 403 `field_not_writable`. */
  write?: string;
}

/**
 * Who may do what. `owner` (read, update, delete) means any user at the gateway, then the record's
 * owner or an admin in the service. `create` needs a user: the creator becomes the owner.
 */
export interface ResourceAccess {
  create: 'user' | 'admin';
  list: 'public' | 'user' | 'admin' | 'master';
  read: 'public' | 'user' | 'owner' | 'admin' | 'master';
  update: 'user' | 'owner' | 'admin';
  delete: 'user' | 'owner' | 'admin';
}

/** The fields every record has besides its own: the owner and the timestamps (API names). */
export const SYSTEM_FIELDS = ['user', 'createdAt', 'updatedAt'] as const;
export type SystemField = (typeof SYSTEM_FIELDS)[number];

/** What the generic code reads of any resource definition. */
export interface AnyResourceDefinition {
  name: string;
  singular: string;
  fields: Readonly<Record<string, FieldDef>>;
  searchable: readonly string[];
  sortable: readonly string[];
  defaultSort: string;
  access: ResourceAccess;
  /** Per action, a rule in place of the `access` level (docs/api.md, "Rules"): a preset or an expression. */
  rules?: Partial<Record<'list' | 'read' | 'create' | 'update' | 'delete', string>>;
  /** The system fields listings filter on; default all (`user`, `createdAt`, `updatedAt`). */
  systemFilters?: readonly SystemField[];
}

/** Everything a resource service knows about its records; schemas, views, listing and indexes follow from it. */
export interface ResourceDefinition<F extends Record<string, FieldDef>> extends AnyResourceDefinition {
  /** Plural: the URL segment and the collection, e.g. `articles`. */
  name: string;
  /** Singular, in prose: `article`. */
  singular: string;
  fields: F;
  /** Fields `q` searches in (case-insensitive literal substring). */
  searchable: ReadonlyArray<keyof F & string>;
  /** Fields `sort` accepts. */
  sortable: ReadonlyArray<(keyof F & string) | 'createdAt' | 'updatedAt'>;
  /** The order without `sort`, e.g. `-createdAt`. */
  defaultSort: string;
  access: ResourceAccess;
  rules?: Partial<Record<'list' | 'read' | 'create' | 'update' | 'delete', string>>;
  systemFilters?: readonly SystemField[];
}

/** Keeps the field literals (enum values, required flags) so the model type can be derived. */
export function defineResource<const F extends Record<string, FieldDef>>(definition: ResourceDefinition<F>): ResourceDefinition<F> {
  return definition;
}

type ValueOf<D extends FieldDef> = D['type'] extends 'integer' | 'number'
  ? number
  : D['type'] extends 'boolean'
    ? boolean
    : D['type'] extends 'date'
      ? Date
      : D extends { type: 'enum'; values: ReadonlyArray<infer V> }
        ? V
        : string;

type Flatten<T> = { [K in keyof T]: T[K] };
type RequiredKeys<F> = { [K in keyof F]: F[K] extends { required: true } ? K : never }[keyof F];

/** The values a client sends for the fields (dates as `Date`, as joi converts them). */
export type FieldValues<F extends Record<string, FieldDef>> = Flatten<
  { [K in RequiredKeys<F>]: ValueOf<F[K]> } & { [K in Exclude<keyof F, RequiredKeys<F>>]?: ValueOf<F[K]> }
>;

/** A stored record as the domain sees it. */
export type ResourceModel<F extends Record<string, FieldDef>> = Flatten<
  { id: string } & FieldValues<F> & {
      /** The creating user's id. */
      userId: string;
      createdAt: Date;
      updatedAt: Date;
      /** Grows with every change (0 for a record stored before versions); the ETag is made of it. */
      version: number;
    }
>;

export type ModelOf<R> = R extends ResourceDefinition<infer F> ? ResourceModel<F> : never;
export type ValuesOf<R> = R extends ResourceDefinition<infer F> ? FieldValues<F> : never;
/** The API fields of a resource's view besides `id`. */
export type ApiFieldOf<R> = R extends ResourceDefinition<infer F> ? (keyof F & string) | SystemField : never;

/** The route level for an operation: `owner` is checked in the service, after the record is loaded. */
export function routeLevel(level: ResourceAccess[keyof ResourceAccess]): AccessLevel {
  return level === 'owner' ? 'user' : level;
}

/** The API fields besides `id`, in view order. */
export function apiFields(definition: AnyResourceDefinition): string[] {
  return [...Object.keys(definition.fields), ...SYSTEM_FIELDS];
}

/** The model (and stored) field behind an API field: the owner is `userId`, `id` is `_id`. */
export function modelField(apiField: string): string {
  return apiField === 'user' ? 'userId' : apiField;
}
