import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { LessonSearch } from "../api/types";
import { link } from "../routes/route";
import { LessonsView, SearchPage } from "./SearchPage";

const answer: LessonSearch = {
  text: "out of memory",
  query: "out of memory",
  truncated: false,
  candidates: 1000,
  hits: [
    {
      id: "run:demo-sft-003",
      type: "Run",
      project: "demo-llm",
      name: "demo-sft-003",
      status: "failed",
      experiment: "experiment:demo-llm/exp-002",
      score: 2.3456,
      matches: [{ field: "error_message", text: "CUDA out of memory" }],
    },
    {
      id: "dataset:demo-llm/instruct@v2",
      type: "DatasetVersion",
      project: "demo-llm",
      name: "instruct",
      status: null,
      experiment: null,
      score: 0.5,
      matches: [
        { field: "change_note", text: "shorter samples: the long ones ran out of memory" },
        { field: "description", text: "memory <b>& time</b>" },
      ],
    },
  ],
};

const textOf = (html: string) => html.replace(/<!-- -->/g, "").replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim();

/** HTML's `&` in an attribute. */
const attr = (value: string) => value.replace(/&/g, "&amp;");

/** Each hit of the HTML: its id, type, its line's text, and its matches (`field=field: text`), in order. */
function hits(html: string) {
  return [...html.matchAll(/<li data-lesson-hit="([^"]+)" data-type="([^"]+)">(.*?)<ul class="lesson-matches">(.*?)<\/ul><\/li>/g)].map((m) => ({
    id: m[1],
    type: m[2],
    line: textOf(m[3]),
    matches: [...m[4].matchAll(/<li data-match-field="([^"]+)">(.*?)<\/li>/g)].map((c) => `${c[1]}=${textOf(c[2])}`),
  }));
}

describe("the lessons answer", () => {
  it("lists the hits best first: id linked, type, status, experiment linked, each matching text", () => {
    const html = renderToString(<LessonsView answer={answer} />);
    expect(hits(html)).toEqual([
      {
        id: "run:demo-sft-003",
        type: "Run",
        line: "▶ Run run:demo-sft-003 failed · experiment experiment:demo-llm/exp-002 · project demo-llm · score 2.3456",
        matches: ["error_message=error_message: CUDA out of memory"],
      },
      {
        id: "dataset:demo-llm/instruct@v2",
        type: "DatasetVersion",
        line: "▦ Dataset version dataset:demo-llm/instruct@v2 — · experiment — · project demo-llm · score 0.5",
        matches: [
          "change_note=change_note: shorter samples: the long ones ran out of memory",
          // A matching text is text, never markup.
          "description=description: memory &lt;b&gt;&amp; time&lt;/b&gt;",
        ],
      },
    ]);
    expect(html).toContain('<span data-col="status" class="status-failed">failed</span>');
    expect(html).toMatch(/data-col="experiment"><a href="[^"]+" class="node-link" title="experiment:demo-llm\/exp-002">/);
    for (const id of ["run:demo-sft-003", "experiment:demo-llm/exp-002", "dataset:demo-llm/instruct@v2"]) {
      expect(html).toContain(`href="${link.node(id)}"`);
    }
    expect(html.indexOf("run:demo-sft-003")).toBeLessThan(html.indexOf("dataset:demo-llm/instruct@v2"));
    expect(textOf(/data-testid="lessons-count">(.*?)<\/p>/.exec(html)?.[1] ?? "")).toBe("2 hits for “out of memory”, best first.");
    expect(html).not.toContain("lessons-truncated");
    expect(html).not.toContain("lessons-candidates");
  });

  it("says when more hits matched, and that the filters narrowed the index's best matches", () => {
    const html = renderToString(<LessonsView answer={{ ...answer, truncated: true, hits: answer.hits.slice(0, 1) }} filtered />);
    expect(textOf(/data-testid="lessons-truncated">(.*?)<\/p>/.exec(html)?.[1] ?? "")).toBe(
      "⚠ More hits matched than the 1 shown: add a word or a filter to narrow the search.",
    );
    expect(textOf(/data-testid="lessons-candidates">(.*?)<\/p>/.exec(html)?.[1] ?? "")).toBe(
      "The filters keep these of the index&#x27;s best 1000 matches of the words.",
    );
    expect(textOf(/data-testid="lessons-count">(.*?)<\/p>/.exec(html)?.[1] ?? "")).toBe("1 hit for “out of memory”.");
  });

  it("says when nothing matched", () => {
    const html = renderToString(<LessonsView answer={{ ...answer, hits: [] }} />);
    expect(textOf(/data-testid="lessons-count">(.*?)<\/p>/.exec(html)?.[1] ?? "")).toBe("No hit for “out of memory”.");
    expect(html).not.toContain("data-lesson-hit");
  });
});

describe("the search page", () => {
  it("offers both modes, the one shown marked, each keeping the words and the project", () => {
    const names = renderToString(<SearchPage route={{ page: "search", q: "oom", type: "", project: "p" }} />);
    expect(names).toContain(`href="${attr(link.search("oom", "p"))}" aria-current="page"`);
    expect(names).toContain(`href="${attr(link.lessons("oom", "p"))}">`);
    expect(names).toContain('id="q"');
    expect(names).not.toContain('id="lessons-q"');
  });

  it("shows the lessons form with the link's filters, and asks for words when there are none", () => {
    const route = {
      page: "search",
      mode: "lessons",
      q: "",
      project: "",
      kinds: ["run"],
      status: "failed",
      metric: "final:val/loss<1.5",
      param: "lr=2e-5",
      uses: "dataset:p/x@v1",
    } as const;
    const html = renderToString(<SearchPage route={{ ...route, kinds: [...route.kinds] }} />);
    expect(html).toContain(`href="${link.lessons("", "")}" aria-current="page"`);
    expect(html).toMatch(/id="lessons-kind-run" type="checkbox" checked=""/);
    expect(html).toMatch(/id="lessons-kind-model" type="checkbox"\/>/);
    const value = (id: string) => new RegExp(`id="${id}"[^>]*value="([^"]*)"`).exec(html)?.[1];
    expect(value("lessons-status")).toBe("failed");
    expect(value("lessons-metric")).toBe("final:val/loss&lt;1.5");
    expect(value("lessons-param")).toBe("lr=2e-5");
    expect(value("lessons-uses")).toBe("dataset:p/x@v1");
    expect(html).toContain("Give words to look for");
    expect(html).not.toContain('id="q"');
  });
});
