/**
 * The container tests (npm run test:containers): black-box, against the stack that
 * scripts/containers/test-containers.cjs brought up with docker compose. No global setup (the stack brings its
 * own databases), one file at a time, in the order of their names: the later ones stop, restart and
 * kill parts of the stack the earlier ones use.
 */
const path = require('node:path');

const rootDir = path.resolve(__dirname, '..', '..');

module.exports = {
  rootDir,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/containers/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '\\.unit\\.test\\.ts$'],
  testSequencer: '<rootDir>/test/containers/by-name-sequencer.cjs',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.check.json', isolatedModules: true, diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'cjs', 'json'],
  // Compose restarts and broker restarts take tens of seconds; each wait in the tests is bounded.
  testTimeout: 5 * 60_000,
};
