/**
 * The chart tests (npm run test:chart): deploy/helm/restgate rendered with helm, validated against
 * Kubernetes' schemas, held to the policy in deploy/helm/policy, and compared with the compose
 * stack through the registry. No backing services; the global setup installs the tools
 * (scripts/chart/tools.cjs, cached per user) and hands their paths to the tests.
 */
const path = require('node:path');

const rootDir = path.resolve(__dirname, '..', '..');

module.exports = {
  rootDir,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/chart/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '\\.unit\\.test\\.ts$'],
  globalSetup: '<rootDir>/test/chart/global-setup.cjs',
  moduleNameMapper: { '^@restgate/shared$': '<rootDir>/shared/src/index.ts' },
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.check.json', isolatedModules: true, diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'cjs', 'json'],
  // helm and conftest each take about a second here, more on a busy machine.
  testTimeout: 120_000,
};
