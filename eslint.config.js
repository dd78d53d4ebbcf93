// ESLint flat config: typescript-eslint's recommended rules, plus the type-aware rules that
// catch promises nobody awaits (a silent failure in a long-running controller or agent).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** The controller's domain modules: below the HTTP layer, which calls them. */
const DOMAIN_MODULES = [
  'server/auth',
  'server/audit',
  'server/fleet',
  'server/profiles',
  'server/rollouts',
  'server/commands',
  'server/onboarding',
  'server/pki',
  'server/storage',
  'server/telemetry',
  'server/agent-gateway',
  'server/cluster',
  'server/secrets',
];

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
      'client/src/schema.d.ts',
      'web-admin/src/pages/profiles/spec-validator.generated.js',
      'test-results/',
      // Scratch trees, e.g. another commit's console built by bench/console-baseline.ts.
      '.tmp/',
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
    // The console runs in the browser. Hooks: the plugin's recommended set (hooks called in
    // order, effects naming what they read, and the React Compiler's checks of render purity,
    // refs and state set in effects), with a missing effect dependency an error, not a warning.
    files: ['web-admin/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // Dependencies point one way (docs/ARCHITECTURE.md, "Where each concern lives"): core is the
    // shared domain; the agent and the controller build on it; the CLI and the console are clients
    // of the REST API through @wrtfleet/client (client/), which imports none of them; inside the
    // controller, domain modules sit under the HTTP layer. Import cycles, type-only ones included,
    // are checked by test/repo/import-cycles.unit.test.ts.
    files: ['**/*.{ts,tsx,mts,mjs,js}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['tsconfig.json', 'web-admin/tsconfig.json'],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: 'core',
              from: ['agent', 'server', 'cli', 'web-admin', 'lab', 'bench', 'test'],
              message: 'core/ is the shared domain: it imports no process, client or test.',
            },
            {
              target: 'agent',
              from: ['server', 'cli', 'web-admin'],
              message: 'The agent talks to the controller over gRPC only.',
            },
            {
              target: 'server',
              from: 'agent',
              except: ['./index.ts'],
              message: 'The controller uses the agent through agent/index.ts only.',
            },
            {
              target: 'server',
              from: ['cli', 'web-admin/src'],
              message: 'The controller does not import its clients.',
            },
            {
              target: 'cli',
              from: ['server', 'agent', 'lab'],
              message: 'The CLI is a client of the REST API: requests and types from @wrtfleet/client, no server code.',
            },
            {
              target: 'client',
              from: ['server', 'agent', 'core', 'cli', 'web-admin', 'lab', 'bench', 'test', 'prisma', 'proto'],
              message:
                'The client package reaches the controller only through its REST API, in Node.js and browsers alike.',
            },
            {
              target: 'web-admin/src',
              from: ['agent', 'server', 'cli', 'lab', 'bench', 'test', 'prisma', 'proto'],
              message: "The console's browser code reaches the controller only through its REST API.",
            },
            {
              target: 'web-admin/src',
              from: 'core',
              except: ['./plan/plan-text.ts', './enum-values.ts'],
              message: 'Of core/, the browser code imports only the pure modules written for it.',
            },
            {
              target: DOMAIN_MODULES,
              from: ['server/routes', 'server/http-api.ts', 'server/openapi-document.ts'],
              message: 'Domain modules do not import the API: routes call them, not the other way.',
            },
            {
              target: DOMAIN_MODULES,
              from: 'server/http',
              except: ['./api-error.ts', './api-paths.ts'],
              message: 'Of the HTTP layer, domain modules may use only its leaves: the error shape and the API paths.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
