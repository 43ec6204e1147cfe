/** Realtime's access to change events: the services' own compiled rules, as `@restgate/shared/resource` loads them. */
export {
  compiledResourceFile,
  loadRecordAccess as loadResourceAccess,
  recordAccess as resourceAccess,
  usersAccess,
  type RecordAccess as ResourceAccess,
} from '@restgate/shared/resource';
