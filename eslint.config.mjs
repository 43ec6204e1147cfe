import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const processEnvOutsideConfig = {
  selector: "MemberExpression[object.name='process'][property.name='env']",
  message: 'Read process.env only in config.ts (one joi schema per service).',
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'coverage/**', '.data/**', 'generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': ['error', processEnvOutsideConfig],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // What clients send is measured in characters (code points), as the API docs count: request
    // schemas take their joi from @restgate/shared, whose string lengths count code points.
    files: [
      'services/*/src/http/**/*.ts',
      'services/*/src/api.ts',
      'shared/src/data/listing.ts',
      'shared/src/http/http-url.ts',
      'shared/src/resource/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'joi',
              message: "Use { Joi } from '@restgate/shared' (lengths in code points); types may come from 'joi'.",
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // Config files, tests and the test support read the environment on purpose.
    files: ['**/src/config.ts', '**/test/**/*.ts', 'shared/src/testing/**/*.ts', 'bench/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.cjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node }, sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
