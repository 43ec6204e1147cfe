/**
 * The fleet tests (npm run test:fleet): black-box through the load balancer of the swarm stack that
 * scripts/fleet/test-fleet.cjs deployed, under a steady mixed load. No global setup (the stack brings its
 * own databases), one file at a time, in the order of their names: each scenario leaves the fleet
 * whole again for the next.
 */
const path = require('node:path');

const rootDir = path.resolve(__dirname, '..', '..');

module.exports = {
  rootDir,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/fleet/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '\\.unit\\.test\\.ts$'],
  testSequencer: '<rootDir>/test/containers/by-name-sequencer.cjs',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.check.json', isolatedModules: true, diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'cjs', 'json'],
  // Rolling updates and broker fail-overs take minutes; each wait in the tests is bounded.
  testTimeout: 10 * 60_000,
};
