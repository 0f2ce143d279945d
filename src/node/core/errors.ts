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
