/** /help's output: the commands with their usage. */
import type { HelpOutput } from '../../commands';
import type { CommandViewProps } from '../command-view-types';

export default function HelpView({ entry }: CommandViewProps<HelpOutput>) {
  return (
    <>
      <strong>Commands</strong>
      <dl>
        {entry.payload.commands.map((c) => (
          <div key={c.name}>
            <dt>
              <code>{c.usage}</code>
            </dt>
            <dd>{c.description}</dd>
          </div>
        ))}
      </dl>
      <p className="hint">Start a message with // to send it with a leading slash.</p>
    </>
  );
}
