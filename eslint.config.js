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
    rules: { 'no-restricted-imports': ['error', { patterns: [DRIVERS] }] },
  },
  {
    files: ['src/node/core/**/*.ts'],
    ignores: ['src/node/core/opencode/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CORE, RUNTIME] }] },
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
  // TEMPORARY (issue 41): files still over the limits. Those marked D1 and F are being split by
  // those engineers this round: the lead removes them after merging. Those marked E were not
  // split in time this round (engineer E's follow-up): each line goes when its file is split.
  {
    files: [
      'src/node/agent/bridge.ts', // D1
      'src/node/agent/confinement.ts', // D1
      'src/node/agent/runtime-definitions.ts', // D1
      'src/node/core/calibration-walk.ts', // F
      'src/chat/chat-panel.tsx', // E: ChatPanel
      'src/chat/composer.tsx', // E: Composer
      'src/chat/session-switcher.tsx', // E: SessionSwitcher
      'src/node/demo/live-script.ts', // E: liveDemoScript
      'src/node/import/read-export.ts', // E: readExports
      'src/node/scripted-model/server.ts', // E: scriptedModelApp
      'src/node/server/app.ts', // E: createApp
      'src/node/server/start.ts', // E: start
      'src/node/server/workspace-routes.ts', // E: workspaceRoutes
      'src/node/storage/sql/queries.ts', // E: class Queries
    ],
    rules: { 'max-lines-per-function': 'off', 'local/max-class-lines': 'off' },
  },
  {
    files: ['src/{app,chat,api,commands}/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs['recommended-latest'].rules,
      'no-restricted-imports': ['error', { patterns: [NODE_ONLY] }],
    },
  },
  {
    files: ['src/{chat,api,commands}/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NODE_ONLY, APP] }] },
  },
  {
    files: ['src/commands/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NODE_ONLY, APP, CHAT] }] },
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
