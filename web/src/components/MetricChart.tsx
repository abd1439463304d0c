import { useMemo, useState } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

const PALETTE = ["#1f5fa8", "#b8621b", "#1a7f5a", "#a1224f", "#6a4c93", "#7a6a00", "#4a5568"];
const DASHES = ["", "6 3", "2 2", "8 3 2 3"];

export interface ChartPoint {
  [key: string]: number | string | null;
}

/** Above this many points a line is drawn without a dot per point. */
const MAX_DOTTED_POINTS = 60;

/**
 * Several metrics overlaid against `xKey`; checkboxes choose which are drawn. Lines differ
 * by dash pattern too, and the legend names them. With `field`, the chart (or its empty
 * message) carries `data-field` and, for tests and tools, what it draws: `data-metrics` (the
 * names, a JSON list) and `data-point-counts` (points per metric, a JSON map).
 */
export function MetricChart({
  points,
  metrics,
  xKey,
  xLabel,
  title,
  field,
  counts,
  empty = "No metric values to chart.",
}: {
  points: ChartPoint[];
  metrics: string[];
  xKey: string;
  xLabel: string;
  title: string;
  field?: string;
  counts?: Record<string, number>;
  empty?: string;
}) {
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const shown = useMemo(() => metrics.filter((m) => !hidden.has(m)), [metrics, hidden]);
  const described = field ? { "data-field": field, "data-metrics": JSON.stringify(metrics), "data-point-counts": JSON.stringify(counts ?? {}) } : {};
  if (!points.length || !metrics.length)
    return (
      <p className="muted" {...described}>
        {empty}
      </p>
    );
  const toggle = (m: string) =>
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(m)) next.delete(m);
      else next.add(m);
      return next;
    });
  return (
    <figure className="chart" aria-label={title} {...described}>
      <figcaption>{title}</figcaption>
      <fieldset className="chart-metrics">
        <legend>Metrics shown</legend>
        {metrics.map((m) => (
          <label key={m}>
            <input type="checkbox" checked={!hidden.has(m)} onChange={() => toggle(m)} /> {m}
          </label>
        ))}
      </fieldset>
      <ResponsiveContainer width="100%" height={280}>
        <LineChart data={points} margin={{ top: 8, right: 24, bottom: 24, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey={xKey} type="number" allowDecimals={false} domain={["dataMin", "dataMax"]} label={{ value: xLabel, position: "insideBottom", offset: -12 }} />
          <YAxis />
          <Tooltip />
          <Legend verticalAlign="top" />
          {shown.map((m) => {
            const i = metrics.indexOf(m);
            return (
              <Line
                key={m}
                type="monotone"
                dataKey={m}
                stroke={PALETTE[i % PALETTE.length]}
                strokeDasharray={DASHES[i % DASHES.length]}
                dot={points.length <= MAX_DOTTED_POINTS}
                connectNulls
                isAnimationActive={false}
              />
            );
          })}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
