import { link } from "../routes/route";
import { typeStyle } from "../graph/styles";

/** A link to a node's card, with its type as text. */
export function NodeLink({ id, type, label }: { id: string; type?: string | null; label?: string | null }) {
  const style = type ? typeStyle(type) : null;
  return (
    <a href={link.node(id)} className="node-link" title={id}>
      {style && (
        <span className="type-tag" style={{ borderColor: style.colour }}>
          <span aria-hidden="true">{style.glyph}</span> {style.label}
        </span>
      )}{" "}
      {label || id}
    </a>
  );
}
