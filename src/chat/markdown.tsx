/**
 * Markdown in chat messages, rendered safely: react-markdown builds React elements (never an
 * HTML string), raw HTML in the text is dropped, not rendered, and link targets pass its URL
 * filter (no `javascript:`). Images become links: the page loads nothing a message names.
 * Loaded lazily, as its own chunk, so the initial bundle stays small.
 */
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  ),
  img: ({ src, alt }) =>
    typeof src === 'string' && src ? (
      <a href={src} target="_blank" rel="noopener noreferrer nofollow">
        {alt || src}
      </a>
    ) : (
      <>{alt}</>
    ),
  // Code scrolls sideways on narrow screens: focusable, so a keyboard can scroll it too.
  pre: ({ children }) => <pre tabIndex={0}>{children}</pre>,
  // Wide tables scroll inside their own box instead of pushing the page sideways.
  table: ({ children }) => (
    <div className="md-table" tabIndex={0} role="region" aria-label="Table">
      <table>{children}</table>
    </div>
  ),
};

export default function Markdown({ text }: { text: string }) {
  return (
    <div className="message-text markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
