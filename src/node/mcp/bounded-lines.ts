/**
 * Standard input cut into lines of at most `maxLine` bytes before the MCP SDK reads it. The SDK's
 * stdio transport holds everything up to a newline and, past its buffer bound, gives up on the
 * whole stream (the server closed and never answered the next request). Here a line over the
 * bound is dropped as it streams — never held — and reported once it ends, so the server answers
 * it with a JSON-RPC error and goes on with the next line.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** The SDK's own bound for one message (STDIO_DEFAULT_MAX_BUFFER_SIZE): 10 MiB. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

export class BoundedLines extends Transform {
  /** The bytes of the line so far (only while it is within the bound). */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** Whether the current line went past the bound: it is being dropped. */
  private dropping = false;

  constructor(
    private readonly maxLine: number,
    private readonly onOversize: (bytes: number) => void,
    /** Sees each whole line first; true when it answered the line itself (it is then not passed on). */
    private readonly screen: (line: Buffer) => boolean = () => false,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.addPiece(chunk.subarray(start, end), newline !== -1);
      start = end;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.heldBytes > 0 && !this.dropping) this.pass(Buffer.concat(this.held));
    done();
  }

  /** One piece of a line; `ends` when it holds the line's newline. Each whole line is pushed alone. */
  private addPiece(piece: Buffer, ends: boolean): void {
    this.heldBytes += piece.length;
    if (!this.dropping && this.heldBytes > this.maxLine + 1) {
      this.dropping = true;
      this.held = [];
    }
    if (!this.dropping) this.held.push(piece);
    if (!ends) return;
    if (this.dropping) this.onOversize(this.heldBytes);
    else this.pass(Buffer.concat(this.held));
    this.held = [];
    this.heldBytes = 0;
    this.dropping = false;
  }

  private pass(line: Buffer): void {
    if (!this.screen(line)) this.push(line);
  }
}
