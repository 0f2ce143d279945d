/** The size of an image carried in a data URL, read from its header only. Pure (no Node APIs). */
import { imageSize } from 'image-size';

/** Enough of the base64 body for any header image-size reads (JPEG markers can sit after EXIF). */
const HEAD_CHARS = 256 * 1024;

export function dataUrlImageSize(url: string): { width: number; height: number } | null {
  const match = /^data:image\/[^;,]*;base64,/.exec(url);
  if (!match) return null;
  try {
    const head = url.slice(match[0].length, match[0].length + HEAD_CHARS).replace(/[^A-Za-z0-9+/]/g, '');
    const binary = atob(head.slice(0, head.length - (head.length % 4)));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const { width, height } = imageSize(bytes);
    return width && height ? { width, height } : null;
  } catch {
    return null;
  }
}
