/**
 * Above the composer while an agent is attached: one polite status line for the shown session's
 * turn ("Agent is replying…", "Stopped", "Failed: …") and a Stop button while it runs — also for
 * a turn this page is not listening to (after a reload, from another tab). The line is always in
 * the page, so a change of its text is announced; it takes no room when empty.
 */
import { useEffect, useRef } from 'react';
import { phaseText, type LiveTurn } from './live-turns';

interface Props {
  /** The latest turn of the shown session started here, if any. */
  latest: LiveTurn | null;
  runningElsewhere: boolean;
  stoppingElsewhere: boolean;
  onStop: () => void;
  /** Where focus goes when Stop disappears under it. */
  onStopGone: () => void;
}

export function TurnBar({ latest, runningElsewhere, stoppingElsewhere, onStop, onStopGone }: Props) {
  const running = runningElsewhere || latest?.phase === 'sending' || latest?.phase === 'streaming';
  const stopping = runningElsewhere ? stoppingElsewhere : latest?.phase === 'stopping';
  const text = runningElsewhere
    ? stoppingElsewhere
      ? 'Stopping…'
      : 'Agent is replying in this session…'
    : latest
      ? phaseText(latest)
      : '';
  const showStop = running || stopping;
  // Stop goes away when the turn ends: if it had the focus, the composer takes it (not the page).
  const stopFocused = useRef(false);
  useEffect(() => {
    if (showStop || !stopFocused.current) return;
    stopFocused.current = false;
    onStopGone();
  }, [showStop, onStopGone]);

  return (
    <div
      role="group"
      aria-label="Agent turn"
      className={`turn-bar${showStop || (!runningElsewhere && latest?.phase === 'stopped') ? '' : ' idle'}`}
    >
      <p role="status">
        {running && <span className="spinner" aria-hidden="true" />}
        {/* A failure or a finished reply is shown in place, in the message: here it is only announced. */}
        <span className={showStop || latest?.phase === 'stopped' ? undefined : 'visually-hidden'}>{text}</span>
      </p>
      {showStop && (
        <button
          type="button"
          className="stop"
          // Not `disabled` while stopping: a disabled button would drop the keyboard focus.
          aria-disabled={stopping}
          onClick={() => {
            if (!stopping) onStop();
          }}
          onFocus={() => (stopFocused.current = true)}
          onBlur={(event) => {
            // Focus moved to something else; a blur as the button leaves the page does not count.
            if (event.relatedTarget !== null) stopFocused.current = false;
          }}
        >
          {/* Stopping is said once, in the status line: the button keeps its name. */}
          Stop
        </button>
      )}
    </div>
  );
}
