import { Fragment, useState } from "react";
import { digestSegments, isShortened, shownText, wrapPieces } from "../../lib/shorten";

/**
 * Copies `value`. The button holds no text (an icon and a label for assistive technology), so
 * that the text of the element around it stays the value itself.
 */
function CopyValue({ value }: { value: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const copy = () => {
    navigator.clipboard
      .writeText(value)
      .then(() => setState("copied"))
      .catch(() => setState("failed"));
  };
  const label = state === "copied" ? "Copied the full value" : state === "failed" ? "Copy failed" : "Copy the full value";
  return (
    <button type="button" className="copy-value" data-state={state} onClick={copy} aria-label={label} title={label}>
      <svg aria-hidden="true" viewBox="0 0 16 16" width="12" height="12">
        {state === "copied" ? (
          <path d="M2 8.5l4 4 8-9" fill="none" stroke="currentColor" strokeWidth="2" />
        ) : (
          <>
            <rect x="5" y="5" width="9" height="9" rx="1" fill="none" stroke="currentColor" strokeWidth="1.5" />
            <path d="M3 11H2V2h9v1" fill="none" stroke="currentColor" strokeWidth="1.5" />
          </>
        )}
      </svg>
    </button>
  );
}

/** `text` with a line-break opportunity after each `/` and `@` (`<wbr>` adds no text). */
function Wrappable({ text }: { text: string }) {
  const pieces = wrapPieces(text);
  return (
    <>
      {pieces.map((piece, i) => (
        <Fragment key={i}>
          {piece}
          {i < pieces.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}

/**
 * A value that may be long: it may wrap after each `/` and `@`; a content digest in it is
 * shortened in view (`sha256:` and its first hex digits, then `…`), the whole value being in the
 * tooltip, in `data-value`, behind a copy button, and in the text of the element (the rest of
 * a digest is hidden from view only).
 */
export function LongValue({ value }: { value: string }) {
  const segments = digestSegments(value);
  if (!isShortened(segments)) return <Wrappable text={value} />;
  return (
    <span className="long-value" title={value} data-value={value} data-shown={shownText(segments)}>
      {segments.map((s, i) => (
        <Fragment key={i}>
          <Wrappable text={s.shown} />
          {s.hidden && (
            <>
              <span className="elided">{s.hidden}</span>
              <span className="ellipsis" aria-hidden="true" />
            </>
          )}
        </Fragment>
      ))}
      <CopyValue value={value} />
    </span>
  );
}
