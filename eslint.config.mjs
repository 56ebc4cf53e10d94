// ESLint flat config: typescript-eslint's recommended rules over every TypeScript source, test and
// bench file (type-aware rules are left out: `npm run typecheck` already runs tsc over the same
// tree, and a second full type-check would double the lint time on a 2-core machine).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', '.e2e/**', '.bench-data/**', 'coverage/**', 'test/fixtures/**', 'test/e2e/**/*.js'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
      'prefer-const': 'error',
      'no-var': 'error',
      'object-shorthand': ['error', 'properties'],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Test doubles and JSON walkers index unknown values; `any` is allowed there, not in the product.
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // Layers. core/ is pure: no editor, no LSP, no file system, processes, sockets or workers, nothing from
    // the layers above it (it runs in the CLI, the server and the JSON worker alike).
    files: ['server/src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { regex: '^vscode(-languageserver.*|-languageclient.*)?(/.*)?$', message: 'core/ is pure: no editor or LSP imports.' },
          { regex: '^(node:)?(fs|child_process|net|worker_threads)(/.*)?$', message: 'core/ is pure: file system, processes, sockets and workers live in node/.' },
          { regex: '^(\\.\\./)+(lsp|features|node|cli|testing|protocol)(/.*)?$', message: 'core/ sits below every other layer.' },
        ],
      }],
    },
  },
  {
    // node/ holds Node implementations the features use; it never reaches up into the framework or features.
    files: ['server/src/node/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(\\.\\./)+(lsp|features)(/.*)?$', message: 'node/ sits below lsp/ and features/: pass a callback instead.' }],
      }],
    },
  },
  {
    // mcp/ is a face over cli/, node/ and core/, beside the language server: never the editor's framework or features.
    files: ['server/src/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(\\.\\./)+(lsp|features|testing)(/.*)?$', message: 'mcp/ sits beside the language server: it uses cli/, node/ and core/ only.' }],
      }],
    },
  },
  {
    // The client is a thin UI shell: the editor, the language client, Node builtins and the shared protocol.
    files: ['client/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { regex: '^(?!vscode$|vscode-languageclient(/.*)?$|node:|\\.\\./\\.\\./server/src/protocol/|\\./).*', message: 'client/ imports only vscode, vscode-languageclient, node: builtins and server/src/protocol/.' },
        ],
      }],
    },
  },
  {
    // The published bin is a CommonJS shim that loads the bundled CLI.
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Functions passed to playwright's page.evaluate/waitForFunction run in the browser.
    files: ['test/e2e/**/*.mjs'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
