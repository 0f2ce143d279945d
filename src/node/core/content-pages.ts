/**
 * An item's text made safe to show: base64 bodies and binary content are named, never shown,
 * and the rest is cut into zero-based pages of ITEM_PAGE_CHARS characters. Pure.
 */
import { fmtBytes } from '../../shared/format';
import type { SourceId } from '../../shared/sources';
import { ITEM_PAGE_CHARS } from '../../shared/item-pages';
import { PageOutOfRange } from './errors';

/** An item's text as the model reads it, with the source it counts for. */
export interface ItemText {
  source: SourceId;
  text: string;
}

const DATA_URL = /data:([\w.+-]+\/[\w.+-]+)?;base64,[A-Za-z0-9+/=]{16,}/g;
const BASE64_RUN = /[A-Za-z0-9+/]{512,}={0,2}/g;
// Control characters other than tab, newline and carriage return mark binary content.
// eslint-disable-next-line no-control-regex
const BINARY = /[\u0000-\u0008\u000e-\u001f]{1,}[\s\S]*/;

export function sanitize(contribution: ItemText): { text: string; omissions: string[] } {
  const omissions: string[] = [];
  let text = contribution.text;
  text = text.replace(DATA_URL, (whole: string, mime: string | undefined) => {
    const note = `[${mime ?? 'binary'} body omitted: ${fmtBytes(Math.floor((whole.length * 3) / 4))} of base64]`;
    omissions.push(note.slice(1, -1));
    return note;
  });
  text = text.replace(BASE64_RUN, (whole: string) => {
    const note = `[base64-like run omitted: ${fmtBytes(whole.length)}]`;
    omissions.push(note.slice(1, -1));
    return note;
  });
  const binary = BINARY.exec(text);
  if (binary) {
    const note = `[binary content omitted: ${fmtBytes(binary[0].length)}]`;
    omissions.push(note.slice(1, -1));
    text = text.slice(0, binary.index) + note;
  }
  if (contribution.source === 'attachment_metadata') {
    omissions.push('the attachment itself goes to the model as a file; only its metadata is shown here');
  }
  return { text, omissions };
}

export function pageText(contribution: ItemText, page: number) {
  const { text, omissions } = sanitize(contribution);
  const pageCount = Math.max(1, Math.ceil(text.length / ITEM_PAGE_CHARS));
  if (!Number.isInteger(page) || page < 0 || page >= pageCount) {
    throw new PageOutOfRange(page, pageCount, 'this item');
  }
  return {
    page,
    pageCount,
    totalChars: text.length,
    text: text.slice(page * ITEM_PAGE_CHARS, (page + 1) * ITEM_PAGE_CHARS),
    omissions,
  };
}

export function previewText(contribution: ItemText, max: number): { preview: string; truncated: boolean } {
  const { text } = sanitize(contribution);
  return text.length > max
    ? { preview: `${text.slice(0, max)}…`, truncated: true }
    : { preview: text, truncated: false };
}
