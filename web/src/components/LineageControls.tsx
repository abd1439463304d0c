import { useEffect, useState, type FormEvent } from "react";
import { NODE_TYPES, enumLabel } from "../graph/styles";
import { isoToLocalInput, localInputToIso } from "../lib/time";
import { MAX_DEPTH, type Direction, type Route } from "../routes/route";
import { navigate } from "../routes/useRoute";

type LineageRoute = Extract<Route, { page: "lineage" }>;

/** Direction, depth, types and as-of of the lineage query; applying changes the link. */
export function LineageControls({ route }: { route: LineageRoute }) {
  const [direction, setDirection] = useState<Direction>(route.direction);
  const [depth, setDepth] = useState(route.depth);
  const [types, setTypes] = useState<string[]>(route.types);
  const [asOf, setAsOf] = useState(isoToLocalInput(route.asOf));
  useEffect(() => {
    setDirection(route.direction);
    setDepth(route.depth);
    setTypes(route.types);
    setAsOf(isoToLocalInput(route.asOf));
  }, [route]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate({ ...route, direction, depth, types, asOf: localInputToIso(asOf) });
  };
  const toggleType = (t: string) => setTypes((old) => (old.includes(t) ? old.filter((x) => x !== t) : [...old, t]));

  return (
    <form className="lineage-controls" onSubmit={submit} aria-label="Lineage query">
      <label htmlFor="direction">Direction</label>
      <select id="direction" value={direction} onChange={(e) => setDirection(e.target.value as Direction)}>
        <option value="up">Upstream (sources)</option>
        <option value="down">Downstream (dependents)</option>
        <option value="both">Both</option>
      </select>
      <label htmlFor="depth">Depth</label>
      <input id="depth" type="number" min={1} max={MAX_DEPTH} value={depth} onChange={(e) => setDepth(Number(e.target.value) || 1)} />
      <label htmlFor="as-of">As of</label>
      <input id="as-of" type="datetime-local" value={asOf} onChange={(e) => setAsOf(e.target.value)} />
      <button type="button" onClick={() => setAsOf("")}>
        Now
      </button>
      <fieldset className="types">
        <legend>Types (none checked: all)</legend>
        {NODE_TYPES.map((t) => (
          <label key={t}>
            <input type="checkbox" checked={types.includes(t)} onChange={() => toggleType(t)} /> {enumLabel(t)}
          </label>
        ))}
      </fieldset>
      <button type="submit">Apply</button>
    </form>
  );
}
