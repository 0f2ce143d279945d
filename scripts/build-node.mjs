// Compiles the Node programs (CLI, server, dev server, tokenizer worker, the agent's MCP server) to plain JavaScript in build/node,
// and writes the tokenizer tables in build/tokenizer in a binary form read without parsing
// (src/node/tokenizer/bpe-table.ts). Runs at install (`prepare`), before a pack (`prepack`,
// through `npm run build`) and in every test run's setup; the checkout's servers (bin/start.js,
// dev.js, demo-agent.js) call `ensureBuilt()`, which walks the sources and rebuilds when one
// changed. The CLI does not walk them at start: bin/investibook.js runs what is built while the
// checkout's HEAD is the one it was built at (scripts/build-stamp.mjs), and a packed install runs
// what it ships. Nothing transpiles TypeScript at run time.
//
// Plain JavaScript on purpose: it must run before anything is compiled. esbuild is a
// devDependency — a checkout's `npm install` and `npm ci` install it, and only this build uses
// it; the compiled programs never import esbuild or tsx (test/node/compiled.test.ts).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkoutHead, readStamp } from './build-stamp.mjs';

export const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['src/node', 'src/shared', 'scripts/demo-agent.ts'];
// The CLI is built apart, split at its dynamic imports: each command's work is a chunk of its
// own (cli-*.mjs beside cli.mjs), loaded when that command runs, so `investibook --help`
// evaluates little more than commander.
const CLI_ENTRY = { cli: 'src/node/cli/main.ts' };
const CLI_CHUNKS = 'cli-[name]-[hash]';
/**
 * The same CLI once more as one CommonJS script (cli.cjs), for the command a user waits on most,
 * the report (`debug context`): bin/investibook.js compiles it through V8 with the code cache an
 * earlier run left beside it (src/node/cli/code-cache.ts), which ES modules cannot take on
 * Node 20. Minified, names too (2.2 → 1.6 MB, its cache 2.3 → 2.1 MB): the script and its cache
 * are read, copied and hashed at every report, ~5 ms of CPU a megabyte on this machine (issue
 * 42.1). No output depends on a function's or class's name (the report snapshots and the CLI's
 * tests run through this script), no stack trace reaches a user, and the source map beside it
 * gives the names back to whoever debugs it.
 */
const CLI_SCRIPT = { cli: 'src/node/cli/main.ts' };
/** `import.meta.url` in a CommonJS script: the script's own URL, made from the `__filename` its wrapper is given. */
const SCRIPT_URL = '__investibook_script_url';
/**
 * The other commands' work, which a `debug context` process never runs, left out of cli.cjs (a
 * CommonJS bundle cannot be split: esbuild inlines every `import()`): the server, the MCP
 * server, the import, the database commands — a quarter of the script, read and kept in memory
 * at every report otherwise. Each becomes a module that fails to load, should a later change
 * reach one from the report (the CLI's tests run every report variant through this script).
 */
const NOT_IN_SCRIPT = {
  'src/node/cli/main.ts': ['./db-commands'],
  'src/node/cli/import-command.ts': ['../import/run-import'],
  'src/node/cli/serve-command.ts': ['../server/main'],
  'src/node/mcp/command.ts': ['./run-mcp'],
};
const reportOnly = (root) => ({
  name: 'report-only',
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) =>
      args.kind === 'dynamic-import' && NOT_IN_SCRIPT[relative(root, args.importer)]?.includes(args.path)
        ? { path: args.path, namespace: 'not-in-script' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'not-in-script' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`investibook: ${args.path} is not in build/node/cli.cjs (the report's script)`)});`,
      loader: 'js',
    }));
  },
});

/**
 * Node built-ins the report's script requires at its top but never uses in a report: commander
 * requires child_process (for subcommands run as executables, which investibook has none of),
 * and with it Node loads net, dgram, streams and their bindings — ~7 ms of CPU at every report
 * (issue 42.1). In cli.cjs each becomes an object whose properties load the built-in when first
 * read; the names are those this Node's built-in exports (a name a later Node adds reads as
 * undefined until the build runs on it). The split ES modules require them as they are.
 */
const LAZY_BUILTINS = ['child_process'];
export const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    const names = new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|')})$`);
    build.onResolve({ filter: names }, (args) =>
      args.namespace === 'lazy-builtin'
        ? { path: args.path, external: true }
        : { path: args.path.replace(/^node:/, ''), namespace: 'lazy-builtin' },
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => {
      const exported = Object.keys(createRequire(import.meta.url)(`node:${args.path}`));
      return {
        contents: `let loaded;
const load = () => (loaded ??= require(${JSON.stringify(`node:${args.path}`)}));
for (const name of ${JSON.stringify(exported)}) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });`,
        loader: 'js',
      };
    });
  },
};

/**
 * cli.cjs as bin/investibook.js reads it at every report. ASCII only: esbuild escapes every
 * character but those in regular expression literals, where `\uXXXX` means the same one (a
 * UTF-16 unit each, as JavaScript counts them); V8 then holds the source as one byte a character,
 * half the memory of a two-byte string. And its SHA-256 in a last comment, which its code cache
 * is checked against without hashing the script at every start (src/node/cli/code-cache.ts).
 */
function finishScript(text) {
  const ascii = text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${ascii}//# investibook-digest=${createHash('sha256').update(ascii).digest('hex')}\n`;
}
const ENTRIES = {
  server: 'src/node/server/main.ts',
  dev: 'src/node/server/dev.ts',
  'token-worker': 'src/node/report/token-worker.ts',
  'demo-agent': 'scripts/demo-agent.ts',
  // Seeds the demo as the built server does, with the build's analyzer version (bench/start.ts).
  'seed-demo': 'src/node/demo/seed-main.ts',
  // Loads cli.cjs from its code cache (bin/investibook.js).
  'code-cache': 'src/node/cli/code-cache.ts',
  // The MCP server the sandboxed agent runs: `--api` only, no database driver (src/node/mcp/main.ts).
  mcp: 'src/node/mcp/main.ts',
  // The relay in front of every sandboxed agent program: its network's ways out and in (src/node/agent/network/relay.ts).
  relay: 'src/node/agent/network/relay.ts',
};
const ENCODINGS = ['o200k_base', 'cl100k_base', 'claude'];
/**
 * What the bundles leave as packages, loaded at run time: they are the package's `dependencies`
 * (everything else is bundled, so a devDependency; test/node/compiled.test.ts holds the two
 * lists together). Native addons, lazily required tables, and thread pools: piscina's
 * worker.js and pino's transports start threads from files beside their own code, which a
 * bundle would move away from them.
 */
export const RUNTIME_EXTERNAL = ['better-sqlite3', 'pg', 'ai-tokenizer', 'piscina', 'pino'];
/** Optional or build-time only, never loaded by the shipped programs: pg's native binding, the build tools (checkout-only code paths). */
const NEVER_SHIPPED = ['pg-native', 'esbuild', 'vite', 'tsx', 'tsx/*'];
const EXTERNAL = [...RUNTIME_EXTERNAL, 'ai-tokenizer/*', ...NEVER_SHIPPED];

/**
 * A large JSON file a module imports (the model catalog, ~0.5 MB) becomes `JSON.parse('…')` of one
 * string instead of an object literal: V8 scans a string and parses JSON faster than it compiles
 * the same data as JavaScript (v8.dev/blog/cost-of-javascript-2019#json), and the report loads the
 * catalog at every run. The same object either way; small files stay literals.
 */
const JSON_PARSE_MIN_BYTES = 10 * 1024;
/**
 * Only `import … with { type: 'json' }`, whose one export is the default: a CommonJS require of a
 * JSON file expects the object itself.
 */
const largeJsonImport = (args, text) => args.with?.type === 'json' && text.length >= JSON_PARSE_MIN_BYTES;
const parsedWhole = (text) => `export default JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(text)))});`;
export const largeJsonAsParse = {
  name: 'large-json-as-parse',
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      return largeJsonImport(args, text) ? { contents: parsedWhole(text), loader: 'js' } : undefined;
    });
  },
};

/**
 * What the builds do with a large JSON object: each of its members is `JSON.parse` of its own
 * string when first read, not when the module loads — a report reads the model catalog's small
 * members (its source) but its 2 MB of models only for a model some provider lists
 * (core/model-catalog.ts; ~35 ms of the demo's report, issue 42.1). Its keys, their order,
 * enumeration and every value read are those `JSON.parse` gives (test/node/lazy-json.test.ts);
 * a member is replaced by its value on its first read, so only a write before that differs, and
 * nothing writes an imported JSON module. Anything else stays `JSON.parse` of one string.
 */
const LAZY_MEMBERS = `(members, read) => {
  const object = {};
  for (const [key, text, file] of members) {
    const define = (value) =>
      Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
    const parse = () => JSON.parse(file === undefined ? text : read(file));
    Object.defineProperty(object, key, { get: () => (define(parse()), object[key]), enumerable: true, configurable: true });
  }
  return object;
}`;
/** JSON with every character past ASCII escaped (`\\uXXXX`, the same string): read as one byte a character. */
const asciiJson = (text) =>
  text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The module for a large JSON object's members. With `files` (the report's script), a member of
 * 10 KB or more is not a string in the script but a file beside it (`cli.cjs.FILE.KEY.json`),
 * read when the member is: the script and its code cache, which would hold the string twice, are
 * read, copied and hashed at every report (the catalog's models, 0.5 MB, a third of the script).
 */
function lazyMembers(path, value, files) {
  const members = Object.entries(value).map(([key, member]) => {
    const text = JSON.stringify(member);
    if (!files || text.length < JSON_PARSE_MIN_BYTES) return [key, text];
    const name = `cli.cjs.${basename(path, '.json')}.${key.replace(/[^\w-]/g, '_')}.json`;
    if (files.has(name) && files.get(name).path !== path) throw new Error(`two JSON members written as ${name}`);
    files.set(name, { path, contents: asciiJson(text) });
    return [key, null, name];
  });
  const read = files
    ? `(name) => __lazyJsonRead(__lazyJsonJoin(__dirname, name), 'latin1')`
    : '() => { throw new Error("no files"); }';
  const imports = files
    ? "import { readFileSync as __lazyJsonRead } from 'node:fs';\nimport { join as __lazyJsonJoin } from 'node:path';\n"
    : '';
  return `${imports}export default (${LAZY_MEMBERS})(${JSON.stringify(members)}, ${read});`;
}
/** `files`: a Map the members written beside the script go to (name → its path and contents); none for the ES modules. */
export const lazyJson = (files = null) => ({
  name: 'large-json-lazy',
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!largeJsonImport(args, text)) return undefined;
      const value = JSON.parse(text);
      const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
      return { contents: isObject ? lazyMembers(args.path, value, files) : parsedWhole(text), loader: 'js' };
    });
  },
});
export const largeJsonLazy = lazyJson();

const outDir = (root) => join(root, 'build', 'node');
const stampPath = (root) => join(outDir(root), 'stamp.json');

/** Every source file's path, size and modification time, and the lockfile, hashed. */
function fingerprint(root) {
  const hash = createHash('sha256');
  const walk = (folder) => {
    if (statSync(folder).isFile()) {
      const { size, mtimeMs } = statSync(folder);
      hash.update(`${relative(root, folder)}\0${size}\0${mtimeMs}\n`);
      return;
    }
    // Sorted by code unit, not localeCompare: loading the collator costs more than the walk (every CLI start).
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx|mjs|js|json)$/.test(entry.name)) {
        const { size, mtimeMs } = statSync(path);
        hash.update(`${relative(root, path)}\0${size}\0${mtimeMs}\n`);
      }
    }
  };
  for (const folder of SOURCES) walk(join(root, folder));
  hash.update(readFileSync(join(root, 'package-lock.json')));
  return hash.digest('hex');
}

/**
 * The sources' contents, hashed: the compiled programs carry it (`__INVESTIBOOK_CODE_DIGEST__`), so
 * what they stored under one build's code (report/stored-analyses.ts) is never read by another's.
 * Made here, at build time only: nothing walks the sources when a program starts.
 */
export function codeDigest(root) {
  const hash = createHash('sha256');
  const walk = (folder) => {
    if (statSync(folder).isFile()) {
      hash.update(`${relative(root, folder)}\0`).update(readFileSync(folder));
      return;
    }
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      walk(join(folder, entry.name));
    }
  };
  for (const folder of SOURCES) walk(join(root, folder));
  return hash.digest('hex').slice(0, 16);
}

/** Writes a file so that a concurrent reader sees the old or the new one, never half of one. */
function writeAtomic(path, content) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}

export async function buildNode(root = PROJECT) {
  const { build } = await import('esbuild');
  const print = fingerprint(root);
  mkdirSync(outDir(root), { recursive: true });
  const options = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Dependencies are bundled too (resolving ~100 modules at start costs more than parsing one
    // file), except what must stay a package: native addons, lazily required tables, thread
    // pools, build tools.
    external: EXTERNAL,
    // ES modules first where a package has both (jsonc-parser's UMD build requires its parts lazily).
    mainFields: ['module', 'main'],
    // CommonJS dependencies inside an ES module bundle still need `require` for Node built-ins.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    outdir: outDir(root),
    outExtension: { '.js': '.mjs' },
    plugins: [largeJsonLazy],
    define: { __INVESTIBOOK_CODE_DIGEST__: JSON.stringify(codeDigest(root)) },
    write: false,
    logLevel: 'silent',
  };
  const besideScript = new Map();
  const [programs, cli, script] = await Promise.all([
    build({ ...options, entryPoints: ENTRIES }),
    build({ ...options, entryPoints: CLI_ENTRY, splitting: true, chunkNames: CLI_CHUNKS }),
    build({
      ...options,
      entryPoints: CLI_SCRIPT,
      format: 'cjs',
      outExtension: { '.js': '.cjs' },
      minifyWhitespace: true,
      minifyIdentifiers: true,
      minifySyntax: true,
      // Every `import()` left (of a built-in or a package) becomes a require: a script compiled
      // through vm.Script imports only through an experimental loader hook, which warns.
      supported: { 'dynamic-import': false },
      define: { ...options.define, 'import.meta.url': SCRIPT_URL },
      banner: { js: `var ${SCRIPT_URL} = require('node:url').pathToFileURL(__filename).href;` },
      plugins: [lazyJson(besideScript), reportOnly(root), lazyBuiltins],
    }),
  ]);
  const data = [...besideScript].map(([name, { contents }]) => ({ path: join(outDir(root), name), contents }));
  const written = [...programs.outputFiles, ...cli.outputFiles, ...script.outputFiles, ...data];
  for (const file of written) {
    writeAtomic(file.path, file.path.endsWith('.cjs') ? finishScript(file.text) : file.contents);
  }
  removeCodeCaches(outDir(root));
  const current = new Set(written.map((f) => f.path));
  removeStaleData(outDir(root), current);
  pruneChunks(outDir(root), current);
  writePackIgnore(outDir(root), current);
  await buildTokenizerTables(root, build);
  writeStamp(root, print);
}

const writeStamp = (root, print) =>
  writeAtomic(
    stampPath(root),
    JSON.stringify({ fingerprint: print, head: checkoutHead(root), builtAt: new Date().toISOString() }),
  );

/** Built for the checkout only: the dev server needs Vite and the sources, the demo agent the scripted model's recordings, the bench its demo; and the code caches runs leave (made for this machine's Node). */
const CHECKOUT_ONLY = ['dev.mjs', 'demo-agent.mjs', 'seed-demo.mjs', 'stamp.json', '*.map', '*.cache', '*.tmp'];

/**
 * The code caches of the script just replaced: each holds the old script's digest and would be
 * read only to be refused; and none made by an older Node lingers.
 */
function removeCodeCaches(folder) {
  for (const name of readdirSync(folder)) {
    if (name.startsWith('cli.cjs.') && name.endsWith('.cache')) rmSync(join(folder, name), { force: true });
  }
}

/** The script's JSON members of earlier builds that this one no longer writes (a key gone, a file renamed). */
function removeStaleData(folder, current) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (name.startsWith('cli.cjs.') && name.endsWith('.json') && !current.has(path)) rmSync(path, { force: true });
  }
}

/**
 * What `npm pack` leaves out of build/node (package.json's `files` takes the folder): the
 * checkout's own programs, the source maps, and the chunks of earlier builds that pruneChunks
 * keeps for an hour for a CLI still running — so the package holds exactly this build.
 */
function writePackIgnore(folder, current) {
  const stale = readdirSync(folder).filter(
    (name) => name.startsWith('cli-') && name.endsWith('.mjs') && !current.has(join(folder, name)),
  );
  writeAtomic(join(folder, '.npmignore'), [...CHECKOUT_ONLY, ...stale].join('\n') + '\n');
}

/**
 * The CLI's chunks of earlier builds, once no process can still be loading them: a CLI started
 * before this build may yet import the chunks its own cli.mjs names (an hour is ample).
 */
function pruneChunks(folder, current) {
  const hour = Date.now() - 60 * 60 * 1000;
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (!name.startsWith('cli-') || current.has(path) || current.has(path.replace(/\.map$/, ''))) continue;
    try {
      if (statSync(path).mtimeMs < hour) rmSync(path, { force: true });
    } catch {
      // gone already (another build pruned it)
    }
  }
}

/**
 * The tokenizer tables in the counter's binary form (src/node/tokenizer/bpe-table.ts, compiled here
 * so that the format has one definition), named by the package's version and the format's, so an
 * upgrade of either never reads an old file.
 */
async function buildTokenizerTables(root, build) {
  const require = createRequire(join(root, 'package.json'));
  // ai-tokenizer does not export its package.json: read the one beside its entry point.
  const entry = require.resolve('ai-tokenizer');
  const { version } = JSON.parse(
    readFileSync(join(entry.slice(0, entry.lastIndexOf('/dist/')), 'package.json'), 'utf8'),
  );
  const folder = join(root, 'build', 'tokenizer');
  mkdirSync(folder, { recursive: true });
  const [module] = (
    await build({
      absWorkingDir: root,
      entryPoints: ['src/node/tokenizer/bpe-table.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    })
  ).outputFiles;
  const { fromPackage, serialize, TABLE_FORMAT } = await import(
    `data:text/javascript;base64,${Buffer.from(module.contents).toString('base64')}`
  );
  const current = ENCODINGS.map((encoding) => `${encoding}@${version}.v${TABLE_FORMAT}.bin`);
  ENCODINGS.forEach((encoding, i) => {
    const path = join(folder, current[i]);
    if (!existsSync(path)) writeAtomic(path, serialize(fromPackage(require(`ai-tokenizer/encoding/${encoding}`))));
  });
  // Tables of another version or format (the JSON copies of earlier builds) are never read again.
  for (const name of readdirSync(folder)) if (!current.includes(name)) rmSync(join(folder, name), { force: true });
}

/** The compiled entry point's path, rebuilt first when any source changed since the last build. */
export async function ensureBuilt(entry, root = PROJECT) {
  const stamp = readStamp(root);
  const output = join(outDir(root), `${entry}.mjs`);
  const print = fingerprint(root);
  if (stamp && stamp.fingerprint === print && existsSync(output)) {
    // The sources are as built: the stamp takes the new HEAD, so the CLI's check passes again.
    if (stamp.head !== checkoutHead(root)) writeStamp(root, print);
  } else {
    if (!(await hasEsbuild(root))) {
      // Installed without devDependencies (npm install --omit=dev): the build that is there runs.
      if (existsSync(output)) return output;
      throw new Error(
        'investibook: the Node programs are not compiled and esbuild is not installed: run npm install (with devDependencies)',
      );
    }
    await buildNode(root);
  }
  return output;
}

async function hasEsbuild(root) {
  try {
    createRequire(join(root, 'package.json')).resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  if (!(await hasEsbuild(PROJECT))) {
    console.log('investibook: esbuild is not installed (no devDependencies): the Node programs were not compiled');
    process.exit(0);
  }
  await buildNode();
  console.log(`investibook: compiled the Node programs into build/ in ${Math.round(performance.now() - started)} ms`);
}
