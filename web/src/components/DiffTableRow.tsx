import { changeMarker, type DiffRow } from "../lib/diff";
import { LongValue } from "./cards/LongValue";

/** One difference as a table row: section, name, both sides, and what changed (with its note). */
export function DiffTableRow({ row }: { row: DiffRow }) {
  return (
    <tr className={`diff-${row.change}`} data-section={row.section} data-name={row.name} data-change={row.change}>
      <td>{row.section}</td>
      <td>{row.name}</td>
      <td className="side-a">
        <LongValue value={row.a} />
      </td>
      <td className="side-b">
        <LongValue value={row.b} />
      </td>
      <td>
        {changeMarker(row.change) || "same"}
        {row.note ? ` (${row.note})` : ""}
      </td>
    </tr>
  );
}

/** The React key of a difference row. */
export const diffRowKey = (r: DiffRow): string => `${r.section}:${r.name}:${r.a}:${r.b}`;
