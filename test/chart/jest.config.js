/**
 * The chart tests (npm run test:chart): deploy/helm/restgate rendered with helm, validated against
 * Kubernetes' schemas, held to the policy in deploy/helm/policy, and compared with the compose
 * stack through the registry. The unit project's module mapping and transform (the config schemas
 * they load import @restgate/shared's sources), but no backing services: the global setup
 * installs the tools instead (scripts/chart/tools.cjs, cached per user).
 */
const path = require('node:path');
const root = require('../../jest.config.js');

const unit = root.projects.find((p) => p.displayName === 'unit');

module.exports = {
  rootDir: path.resolve(__dirname, '..', '..'),
  testEnvironment: 'node',
  moduleNameMapper: unit.moduleNameMapper,
  transform: unit.transform,
  moduleFileExtensions: unit.moduleFileExtensions,
  testMatch: ['<rootDir>/test/chart/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '\\.unit\\.test\\.ts$'],
  globalSetup: '<rootDir>/test/chart/global-setup.cjs',
  globalTeardown: '<rootDir>/test/chart/global-teardown.cjs',
  // helm and conftest each take about a second here, more on a busy machine.
  testTimeout: 120_000,
};
