// One flat config for every workspace; each runs `eslint src` and finds this file by walking up.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // infra/ is plain Node ESM (the script behind npm start / npm test), linted from the root: `eslint infra`.
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
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
);
