// ESLint flat config: typescript-eslint's recommended rules, plus the type-aware rules that
// catch promises nobody awaits (a silent failure in a long-running controller or agent).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      'dist/',
      'bpf/build/',
      'proto/gen/',
      'prisma/generated/',
      'web-admin/dist/',
      'web-admin/.dist-*/',
      'web-admin/src/api/schema.d.ts',
      'web-admin/src/pages/profiles/spec-validator.generated.js',
      'test-results/',
      'fixtures/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // The console runs in the browser. Hooks: the two classic rules (called unconditionally, in
    // order; effects name what they read), not the plugin's React Compiler set.
    files: ['web-admin/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      // A warning until the data layer moves to TanStack Query (issue 35): its effects reload by hand.
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
