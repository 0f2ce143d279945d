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

/**
 * The input lacks rows the core needs and its memo does not hold: the caller read less than
 * `rowsToRead` asked for (a store whose snapshot named a message but did not give its row).
 */
export class RowsNotRead extends Error {
  readonly code = 'rows_not_read';
  constructor(readonly ids: readonly string[]) {
    super(`${ids.length} message row${ids.length === 1 ? '' : 's'} named in the snapshot could not be read`);
    this.name = 'RowsNotRead';
  }
}
