/**
 * How an item's text is paged (`?page=N`, `--page N`): a module without zod, so the engine and the
 * CLI use it without building the wire's schemas (wire.ts re-exports it).
 */
export const ITEM_PAGE_CHARS = 8000;
