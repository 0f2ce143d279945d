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
 * The input lacks a row the core needs and its memo does not hold. Never a retry: the read plan
 * (read-plan.ts) asks for every row a report can need, and the caller checks its snapshot gave
 * them all (report/service.ts), so this is a bug in the plan, not a state of the data.
 */
export class ReadPlanMissed extends Error {
  constructor(readonly ids: readonly string[]) {
    super(`the read plan missed ${ids.length} message row${ids.length === 1 ? '' : 's'} the report needs: ${ids[0]}`);
    this.name = 'ReadPlanMissed';
  }
}
