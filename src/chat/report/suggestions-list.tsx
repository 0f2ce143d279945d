/** The report's suggestions, each leading to the text of the item it names. */
import type { ContextReport } from '../../shared/wire';

export function Suggestions({ report, onShow }: { report: ContextReport; onShow: (itemId: string) => void }) {
  return (
    <section className="suggestions" aria-label="Suggestions">
      <strong>Suggestions</strong>
      <ul>
        {report.suggestions.map((s) => (
          <li key={`${s.kind}-${s.title}`} className={`suggestion suggestion-${s.severity}`}>
            <span className="suggestion-title">{s.title}</span>
            <span className="suggestion-detail">{s.detail}</span>
            {s.itemIds[0] && report.sources.some((src) => src.items.some((i) => i.id === s.itemIds[0])) && (
              <button type="button" className="link" onClick={() => onShow(s.itemIds.at(-1)!)}>
                Show the text
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
