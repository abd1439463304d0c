import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { EffectsAnswer } from "../api/types";
import { link } from "../routes/route";
import { EffectRows, EffectsView } from "./EffectsPage";

const effect = (label: string, extra: Partial<EffectsAnswer["effects"][number]> = {}): EffectsAnswer["effects"][number] => ({
  kind: "PARAM",
  name: label.split(":")[0],
  label,
  before: null,
  after: null,
  factor: null,
  pairs: 1,
  measured: 0,
  meanDelta: null,
  spread: null,
  minDelta: null,
  maxDelta: null,
  failed: 0,
  running: 0,
  failures: [],
  runs: [],
  ...extra,
});

const answer: EffectsAnswer = {
  project: "demo-llm",
  since: null,
  groupBy: "VALUE",
  runsRead: 7,
  truncated: false,
  pairs: 3,
  flaggedPairs: 1,
  repeatPairs: 0,
  metric: { key: "final:val/loss", source: "final", name: "val/loss", split: "val", metric: "loss" },
  effects: [
    effect("lr: 1e-05 -> 2e-05", {
      measured: 2,
      meanDelta: -0.08,
      spread: 0.0282842712,
      minDelta: -0.1,
      maxDelta: -0.06,
      failed: 1,
      pairs: 3,
      failures: [{ error: "OutOfMemoryError", count: 1 }],
      runs: [
        {
          experiment: "experiment:demo-llm/exp-002",
          before: "run:a-1",
          after: "run:a-2",
          status: "completed",
          delta: -0.1,
          startedAt: "2026-01-12T10:00:00Z",
        },
      ],
    }),
    effect("epochs: 3 -> 5", { running: 1 }),
  ],
};

/** The text of every `data-col` cell of the HTML, in order (spaces as one, trimmed). */
function cells(html: string): string[] {
  const textOf = (inner: string) => inner.replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim();
  return [...html.matchAll(/data-col="([^"]+)"[^>]*>(.*?)<\/td>/g)].map((m) => `${m[1]}=${textOf(m[2])}`);
}

describe("the effects answer", () => {
  it("has a row per change with the CLI's columns, and what was counted and left out", () => {
    const html = renderToString(<EffectsView answer={answer} />);
    expect(cells(html)).toEqual([
      "label=lr: 1e-05 -&gt; 2e-05",
      "kind=param",
      "pairs=3",
      "measured=2",
      "mean=-0.08 ± 0.0282843",
      "minDelta=-0.1",
      "maxDelta=-0.06",
      "failed=1 of 3: OutOfMemoryError",
      "running=—",
      "label=epochs: 3 -&gt; 5",
      "kind=param",
      "pairs=1",
      "measured=0",
      "mean=—",
      "minDelta=—",
      "maxDelta=—",
      "failed=—",
      "running=1",
    ]);
    const counted = /data-testid="effects-counted">(.*?)<\/p>/.exec(html)?.[1].replace(/<[^>]*>/g, "");
    expect(counted).toBe("Counted: 3 pairs with exactly one change, of 7 runs. Left out: 1 flagged (more than one change), 0 with nothing changed.");
    expect(html).not.toContain("data-pairs-of");
  });

  it("shows a change's pairs: the runs before and after, the experiment, the status, the delta, a diff", () => {
    const html = renderToString(
      <table>
        <tbody>
          <EffectRows effect={answer.effects[0]} shown />
        </tbody>
      </table>,
    );
    const pairs = html.slice(html.indexOf("data-pairs-of"));
    expect(pairs).toContain('data-before="run:a-1" data-after="run:a-2"');
    expect(cells(pairs)).toEqual([
      "runs=run:a-1 → run:a-2",
      "experiment=experiment:demo-llm/exp-002",
      "status=completed",
      "delta=-0.1",
      "startedAt=2026-01-12T10:00:00Z",
    ]);
    for (const href of [link.node("run:a-1"), link.node("run:a-2"), link.diff("run:a-1", "run:a-2")]) {
      expect(pairs).toContain(`href="${href}"`);
    }
  });

  it("says when there is no one-change pair, and which pairs a `since` kept", () => {
    const html = renderToString(<EffectsView answer={{ ...answer, effects: [], pairs: 0, since: "2026-01-12T00:00:00.000000Z" }} />);
    expect(html).toContain("No one-change pair.");
    expect(html).not.toContain("effects-table");
    expect(html).toContain('pairs since <span data-field="since">2026-01-12T00:00:00.000000Z</span>');
  });
});
