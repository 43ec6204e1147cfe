import path from 'node:path';
import { policyRowsFrom, type PolicyRow } from '../../src/policy';
import { readRegistry, ROOT_DIR, routedServices } from '../../src/registry';
import { loadServiceApis } from '../../src/service-apis';

/** The services the gateway routes to, from the registry (services.json). */
export const ROUTED_SERVICES = routedServices(readRegistry());

/**
 * The policy table as start.ts derives it, but from the services' sources (`src/api.ts`) rather
 * than their build, so the gateway's tests need no `tsc -b` and follow every change to a spec.
 */
export const POLICY_ROWS: readonly PolicyRow[] = policyRowsFrom(
  loadServiceApis(ROUTED_SERVICES, (service) => path.join(ROOT_DIR, service.dir, 'src', 'api.ts')),
);
