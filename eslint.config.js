// ESLint flat config. Besides the usual TypeScript and React hooks rules it enforces the
// project's boundaries: browser code never imports Node code, src/commands never imports the
// chat, and src/shared (the wire types) depends on nothing but zod.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import local from './lint/max-class-lines.js';

const NODE_ONLY = {
  group: [
    '**/node/**',
    '**/node',
    'node:*',
    'better-sqlite3',
    'hono',
    'hono/*',
    '@hono/*',
    'tiktoken',
    'commander',
    'cli-table3',
    'yaml',
    'tsx',
    'tsx/*',
  ],
  message: 'Browser code must not import Node-only code (src/node, Node built-ins, server libraries).',
};
const CHAT = {
  group: ['**/chat/**', '**/chat'],
  message: 'Commands receive what they need through CommandContext; they never import the chat.',
};
const APP = { group: ['**/app/**', '**/app'], message: 'Only the entry point imports the app shell.' };
// The report core is pure: plain data in, plain data out. Reading files or the database,
// tokenizing, HTTP and the CLI are adapters around it.
const CORE = {
  group: [
    'node:*',
    'better-sqlite3',
    'pg',
    'hono',
    'hono/*',
    '@hono/*',
    'commander',
    'cli-table3',
    'ai-tokenizer',
    'ai-tokenizer/*',
    '**/storage/**',
    '**/server/**',
    '**/cli/**',
    '**/report/**',
    '**/agent/**',
    '../errors',
    '**/node/errors',
  ],
  message:
    'The report core is pure: no Node built-ins, storage, server, CLI, tokenizer or HTTP error modules (raise core errors).',
};
// OpenCode is one agent runtime behind a seam (core/runtime.ts): only its adapter knows its format.
const RUNTIME = {
  group: [
    '**/shared/opencode/**',
    '**/shared/opencode',
    '**/core/opencode/**',
    '**/core/opencode',
    './opencode',
    './opencode/*',
    '../opencode',
    '../opencode/*',
  ],
  message:
    "Only the runtime adapter (src/node/core/opencode) knows OpenCode's format: the core goes through the AgentRuntime seam.",
};
// The core has one entry module (src/node/core/index.ts): nothing else of it is imported from
// outside, so its inside can be rearranged without touching the rest. Relative paths only
// (a package's own `core/` folder, as stream-json's, is no concern of this rule).
const CORE_ENTRY = {
  regex: '^(\\.\\.?/)+(src/)?(node/)?core/(?!index$)',
  message: "Import the report core through its entry module ('…/core'), never one of its modules.",
};
// Each agent runtime lives in its folders — core/<runtime> (the read side), agent/<runtime> (the
// write side), shared/<runtime> (its formats), import/<runtime> (its import side) — and nothing
// else imports them but the registries (the core's entry core/index.ts for the read sides,
// report/runtimes.ts through it, agent/runtime-registry.ts, import/runtimes.ts) and the files
// listed in RUNTIME_FENCE_ASIDE (docs/architecture.md says why each is there and what is left to move).
const runtimeFence = (name, title) => ({
  group: [`**/${name}/**`, `**/${name}`, `./${name}`, `../${name}`],
  message: `${title} is a runtime behind the seam (core/runtime.ts, agent/runtime-seam.ts): only its own folders and the registries import its modules.`,
});
const FENCES = [runtimeFence('opencode', 'OpenCode'), runtimeFence('claude-code', 'Claude Code')];
const RUNTIME_FOLDERS = [
  'src/node/{core,agent,import}/{opencode,claude-code}/**',
  'src/shared/{opencode,claude-code}/**',
];
const RUNTIME_FENCE_ASIDE = [
  // The registries: the only places that name every runtime.
  'src/node/report/runtimes.ts',
  'src/node/agent/runtime-registry.ts',
  'src/node/import/runtimes.ts',
];
const DRIVERS = {
  group: ['better-sqlite3', 'pg', 'pg-*', 'kysely'],
  message: 'Only src/node/storage talks to a database driver: use the Store interface.',
};

export default defineConfig([
  globalIgnores(['dist/', 'build/', 'data/', 'coverage/', 'node_modules/', '.cache/', '.scratch/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver()] },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // zod's `z` export is a namespace object the bundlers cannot shake: it keeps all of zod and
      // its 64 locales (~700 KB the CLI compiles at every start); `import * as z` keeps what is used.
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[importKind!='type'][source.value=/^zod/] > ImportSpecifier[imported.name='z']",
          message: "Import zod as a namespace (import * as z from 'zod/mini'): the named `z` bundles every locale.",
        },
      ],
    },
  },
  {
    files: ['src/node/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['src/node/storage/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [DRIVERS, CORE_ENTRY] }] },
  },
  {
    files: ['src/node/storage/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CORE_ENTRY] }] },
  },
  {
    files: ['src/node/**/*.ts'],
    ignores: ['src/node/storage/**', 'src/node/core/**', ...RUNTIME_FOLDERS, ...RUNTIME_FENCE_ASIDE],
    rules: { 'no-restricted-imports': ['error', { patterns: [DRIVERS, CORE_ENTRY, ...FENCES] }] },
  },
  {
    files: ['src/node/core/**/*.ts'],
    ignores: ['src/node/core/opencode/**', 'src/node/core/index.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CORE, RUNTIME] }] },
  },
  // The entry module is the runtime adapters' one way out of the core (to the registry, report/runtimes.ts).
  {
    files: ['src/node/core/index.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CORE] }] },
  },
  {
    files: ['src/node/core/**/*.ts'],
    ignores: ['src/node/core/{opencode,claude-code}/**', 'src/node/core/index.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CORE, RUNTIME, ...FENCES] }] },
  },
  {
    files: ['src/node/core/opencode/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CORE] }] },
  },
  // All of src/ is read step by step: no function longer than a screen and no class longer than
  // a few. 80 lines of code per function and 300 per class (blank lines and comments not
  // counted) is the house rule (style.md); a component or hook past it is split into parts that
  // each do one thing. The class rule is local (lint/max-class-lines.js): ESLint has none.
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { local },
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'local/max-class-lines': ['error', { max: 300 }],
    },
  },
  {
    files: ['src/{app,chat,api,commands}/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs['recommended-latest'].rules,
      'no-restricted-imports': ['error', { patterns: [NODE_ONLY, ...FENCES] }],
    },
  },
  {
    files: ['src/{chat,api,commands}/**/*.{ts,tsx}'],
    ignores: RUNTIME_FENCE_ASIDE,
    rules: { 'no-restricted-imports': ['error', { patterns: [NODE_ONLY, APP, ...FENCES] }] },
  },
  {
    files: ['src/commands/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NODE_ONLY, APP, CHAT, ...FENCES] }] },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NODE_ONLY,
            CHAT,
            APP,
            ...FENCES,
            {
              group: ['react', 'react-*', '@tanstack/*', 'zustand', '**/api/**', '**/commands/**'],
              message: 'The wire types depend on zod only.',
            },
          ],
        },
      ],
    },
  },
]);
