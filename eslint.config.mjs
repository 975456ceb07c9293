// One flat config for every workspace; each runs `eslint src` and finds this file by walking up.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { workspaceBoundaries } from './infra/lint/workspace-boundaries.mjs';

const root = path.dirname(fileURLToPath(import.meta.url));

export default tseslint.config(
  { ignores: ['**/dist/**', '**/generated/**', '**/node_modules/**', '**/.turbo/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-console': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    files: ['**/*.test.ts', '**/test-support/**', 'bench/**', 'infra/**', '**/cli/**'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Imports flow from packages to apps and cross workspaces by package name (infra/lint/workspace-boundaries.mjs);
    // files and functions stay small enough to read in one sitting.
    plugins: { hashwatch: { rules: { 'workspace-boundaries': workspaceBoundaries(root) } } },
    rules: {
      'hashwatch/workspace-boundaries': 'error',
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
  {
    // A test file's describe() holds its cases: the file's length bounds it, not the function rule.
    files: ['**/*.test.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    // infra/ is plain Node ESM (the script behind npm start / npm test), linted from the root with examples/: `eslint infra examples`.
    files: ['infra/**'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process', 'Buffer', 'console', 'URL', 'URLSearchParams', 'fetch', 'AbortController', 'AbortSignal',
          'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate',
          'queueMicrotask', 'structuredClone', 'TextEncoder', 'TextDecoder',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // infra/'s own tests run in jest (infra/jest.config.mjs), which gives them its globals, as ES modules.
    files: ['infra/**/*.test.mjs'],
    languageOptions: {
      globals: Object.fromEntries(['describe', 'it', 'test', 'expect', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach'].map((name) => [name, 'readonly'])),
    },
  },
);
