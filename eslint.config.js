// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';

/** Modules that perform I/O; @cyclone/core must stay pure, so it may import none of them. */
const ioModules = ['pg', 'pg-*', 'drizzle-orm', 'drizzle-orm/*', 'pino', 'pino-*', 'node:*'];
const nodeBuiltins = [
  'fs',
  'fs/promises',
  'path',
  'os',
  'net',
  'http',
  'https',
  'child_process',
  'crypto',
  'events',
  'stream',
  'worker_threads',
  'url',
  'util',
  'process',
  'timers',
  'dns',
  'tls',
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'reports/**',
      '.nx/**',
      '**/*.js',
      '!eslint.config.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      // import-x falls back to the legacy `eslint-import-resolver-node`, which is not installed, as
      // soon as a file imports a package; resolve like TypeScript does instead (NodeNext `.js`
      // specifiers of `.ts` files, sibling packages through the `@cyclone/source` condition).
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '.node'],
          extensionAlias: {
            '.js': ['.ts', '.js'],
            '.mjs': ['.mts', '.mjs'],
            '.cjs': ['.cts', '.cjs'],
          },
          conditionNames: ['@cyclone/source', 'types', 'import', 'node', 'require', 'default'],
        }),
      ],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      'import-x/no-cycle': ['error', { maxDepth: 10 }],
    },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    ignores: ['packages/core/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...ioModules, ...nodeBuiltins],
              message:
                '@cyclone/core is pure: no I/O modules (pg, drizzle-orm, pino, node:*). Put I/O in another package.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts', 'tools/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
  {
    // The examples' stand-ins for an application's services are async like the real ones would
    // be, without anything to await.
    files: ['examples/**/*.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
  prettier,
);
