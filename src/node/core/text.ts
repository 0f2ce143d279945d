/** Text helpers of the core: sizes and previews, without allocating for megabyte texts. Pure. */

/** UTF-8 length without encoding (no allocation: texts can be megabytes). */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair: 4 bytes for two UTF-16 units.
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

export function preview(text: string, max = 60): string {
  // Only the head can show: collapsing the whitespace of a megabyte output would be wasted. A
  // short head is enough unless it is mostly whitespace (indented JSON): then a longer one.
  let flat = text
    .slice(0, max * 2)
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length < max && text.length > max * 2)
    flat = text
      .slice(0, max * 8)
      .replace(/\s+/g, ' ')
      .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
