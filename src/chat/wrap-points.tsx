/**
 * A label that may wrap inside a long file name, never inside a word: a break opportunity
 * (`<wbr>`) after each path separator and underscore, so "evidence_summary_for_agent.txt" or
 * "reference/metrics-cheatsheet.md" wrap at their joints on a phone instead of mid-word. The
 * text itself is unchanged (`<wbr>` has none).
 */
import { Fragment } from 'react';

export function WrapPoints({ text }: { text: string }) {
  const pieces = text.split(/(?<=[/_])(?=\S)/);
  if (pieces.length === 1) return <>{text}</>;
  return (
    <>
      {pieces.map((piece, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {piece}
        </Fragment>
      ))}
    </>
  );
}
