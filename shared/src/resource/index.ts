/**
 * `@restgate/shared/resource`: what every resource service (articles, and each one generated from
 * it) needs and that is not about its own records: the definition type and what follows from it
 * (schemas, listing, view), the repository over a collection, and the ownership rules.
 */
export {
  apiFields,
  defineResource,
  modelField,
  routeLevel,
  SYSTEM_FIELDS,
  type AnyResourceDefinition,
  type ApiFieldOf,
  type FieldDef,
  type FieldType,
  type FieldValues,
  type ModelOf,
  type ResourceAccess,
  type ResourceDefinition,
  type ResourceModel,
  type ValuesOf,
} from './definition';
export { assertMayActOn, assertMayTry, assertOwnerOrAdmin, assertUser, type UserPrincipal } from './ownership';
export { createResourceRepository, type Listing, type ResourceRepository } from './repository';
export { FIELD_DEFAULTS, fieldSchema, lengthBounds, listingSpecOf, resourceSchemas } from './schemas';
export { defineView, type Selected, type View, type ViewRenderer } from './view';
