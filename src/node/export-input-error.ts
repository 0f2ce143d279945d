/**
 * A file or stream that is not a session this program can read (an OpenCode export, a Claude Code
 * transcript): its message names what is wrong, and the CLI prints it in one line (exit 2). A leaf
 * module, so both the import and an agent's read-back can throw it without importing each other.
 */
export class ExportInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportInputError';
  }
}
