/**
 * Test layers: unit (pure functions), integration (one service in-process
 * against real backing services), contract (the whole stack as processes, through the gateway).
 * The global setup provisions MongoDB and RabbitMQ once per run.
 */
const moduleNameMapper = {
  '^@restgate/shared$': '<rootDir>/shared/src/index.ts',
  '^@restgate/shared/messaging$': '<rootDir>/shared/src/messaging/index.ts',
  '^@restgate/shared/testing$': '<rootDir>/shared/src/testing/index.ts',
  '^@restgate/shared/resource$': '<rootDir>/shared/src/resource/index.ts',
  '^@restgate/shared/http$': '<rootDir>/shared/src/http/index.ts',
  '^@restgate/shared/openapi$': '<rootDir>/shared/src/openapi/index.ts',
  '^@restgate/shared/limits$': '<rootDir>/shared/src/limits/index.ts',
  '^@restgate/shared/data$': '<rootDir>/shared/src/data/index.ts',
};
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.check.json', isolatedModules: true, diagnostics: false }] };
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleNameMapper,
  transform,
  moduleFileExtensions: ['ts', 'js', 'cjs', 'json'],
};
const ignored = ['/node_modules/', '/dist/'];

module.exports = {
  // Per-project testTimeout is ignored by jest 29; integration and contract tests need real I/O time.
  testTimeout: 30_000,
  globalSetup: '<rootDir>/test/support/global-setup.cjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.cjs',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/**/*.unit.test.ts'], testPathIgnorePatterns: ignored },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/services/*/test/**/*.test.ts', '<rootDir>/gateway/test/**/*.test.ts'],
      testPathIgnorePatterns: [...ignored, '\\.unit\\.test\\.ts$'],
    },
    {
      ...common,
      displayName: 'contract',
      testMatch: ['<rootDir>/test/contract/**/*.test.ts', '<rootDir>/test/ops/**/*.test.ts', '<rootDir>/test/generator/**/*.test.ts'],
      testPathIgnorePatterns: [...ignored, '\\.unit\\.test\\.ts$'],
    },
  ],
};
