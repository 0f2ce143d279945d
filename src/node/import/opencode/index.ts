/**
 * OpenCode's import side (import-side.ts): its exports — the default, whatever no other runtime
 * recognises is read as one, and refused in one sentence when it is not — and `--from-opencode`.
 */
import type { RuntimeImport } from '../import-side';
import { importExports, importFromOpencode, loadExport } from './run';

export const opencodeImport: RuntimeImport = {
  name: 'opencode',
  files: 'OpenCode exports',
  from: { option: 'fromOpencode', flag: '--from-opencode' },
  importFiles: (sources, request, run) => importExports(sources, request, 'opencode_export', run),
  importFrom: importFromOpencode,
  load: loadExport,
};
