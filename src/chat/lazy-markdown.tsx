/**
 * Markdown, loaded as its own chunk (the renderer is most of a chat's JavaScript): the chat starts
 * loading it at once, and until it is there a message shows its text with the Markdown marks
 * taken out — never the raw `**marks**`.
 */
import { lazy, Suspense } from 'react';

const load = () => import('./markdown');
const Markdown = lazy(load);

/** Starts loading the renderer (the chat does on mount, before any message needs it). */
export const preloadMarkdown = (): void => void load().catch(() => {});

/** Markdown's marks taken out: headings, emphasis, code, links and list bullets read as plain text. */
export function plainMarkdown(text: string): string {
  return text
    .replace(/^\s*(```|~~~)[^\n]*$/gm, '')
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/^\s*>\s?/gm, '')
    .replace(/^(\s*)[-*+]\s+/gm, '$1• ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_\n]+)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/^\|?\s*:?-{3,}.*$/gm, '');
}

export function LazyMarkdown({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="message-text">{plainMarkdown(text)}</div>}>
      <Markdown text={text} />
    </Suspense>
  );
}
