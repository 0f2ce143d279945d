/**
 * The runtimes whose sessions `investibook import` and `debug context --export` read: the
 * import's registry, one of the few places besides a runtime's own folders that names them (the
 * others: agent/runtime-registry.ts, core/index.ts). A new runtime's import is its folder and a
 * line here.
 */
import type { RuntimeName } from '../../shared/runtimes';
import { claudeCodeImport } from './claude-code';
import type { RuntimeImport } from './import-side';
import { opencodeImport } from './opencode';

const IMPORTS: Readonly<Record<RuntimeName, RuntimeImport>> = {
  opencode: opencodeImport,
  'claude-code': claudeCodeImport,
};

/** Every runtime's import, in the order the command's words name them. */
export const IMPORT_SIDES: readonly RuntimeImport[] = Object.values(IMPORTS);

/** The runtime whose file this is: the first that recognises it, else OpenCode's (its reader refuses what is no export). */
export function importSideOf(path: string): RuntimeImport {
  return IMPORT_SIDES.find((side) => side.recognises?.(path)) ?? IMPORTS.opencode;
}
