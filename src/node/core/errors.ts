/** Errors the pure core raises; the shells (HTTP, CLI) map them to statuses and exit codes. */
export class PageOutOfRange extends Error {
  readonly code = 'page_out_of_range';
  constructor(page: number, pageCount: number, what: string) {
    super(
      `page ${page} is out of range: ${what} has ${pageCount} page${pageCount === 1 ? '' : 's'} (0–${pageCount - 1})`,
    );
    this.name = 'PageOutOfRange';
  }
}

/** `?call=N` names no model call of the session, or one that recorded no counts. */
export class CallUnavailable extends Error {
  constructor(
    readonly code: 'call_out_of_range' | 'call_not_measured',
    message: string,
  ) {
    super(message);
    this.name = 'CallUnavailable';
  }
}
